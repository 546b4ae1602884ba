-- Messages, transaction terms, signatures and the certificate ledger, as docs/decisions/transaction-terms.md
-- and docs/certificate-ledger.md describe them. No route wrote these tables before this migration.

-- Messages: a target is all three fields or none; indexes for inboxes, unread counts and conversations.
ALTER TABLE messages
    ADD CONSTRAINT messages_target_check CHECK (
        (target_schema IS NULL) = (target_table IS NULL) AND (target_table IS NULL) = (target_id IS NULL));
CREATE INDEX messages_unread_idx ON messages (recipient_agent_id, id) WHERE read_at_tstamp_utc IS NULL;
CREATE INDEX messages_pair_idx ON messages (sender_agent_id, recipient_agent_id, id);
CREATE INDEX messages_reverse_pair_idx ON messages (recipient_agent_id, sender_agent_id, id);

-- Terms: versioned, content-addressed, optionally valued and time-bounded, offered to named agents.
ALTER TABLE transaction_terms RENAME COLUMN terms_sha256 TO content_sha256;
ALTER TABLE transaction_terms
    ADD COLUMN terms_version text NOT NULL DEFAULT '1'
        CONSTRAINT transaction_terms_terms_version_check CHECK (length(btrim(terms_version)) BETWEEN 1 AND 64),
    ADD COLUMN value_amount numeric
        CONSTRAINT transaction_terms_value_amount_check CHECK (value_amount >= 0),
    ADD COLUMN valid_from_tstamp_utc timestamptz,
    ADD COLUMN valid_to_tstamp_utc timestamptz
        CONSTRAINT transaction_terms_valid_to_tstamp_utc_check CHECK (valid_to_tstamp_utc > valid_from_tstamp_utc),
    ADD COLUMN offered_to_agent_ids uuid[] NOT NULL DEFAULT '{}'
        CONSTRAINT transaction_terms_offered_to_agent_ids_check CHECK (cardinality(offered_to_agent_ids) <= 50),
    ADD CONSTRAINT transaction_terms_currency_code_value_check CHECK (value_amount IS NULL OR currency_code IS NOT NULL),
    ADD CONSTRAINT transaction_terms_content_sha256_check CHECK (content_sha256 ~ '^[0-9a-f]{64}$');
CREATE INDEX transaction_terms_public_idx ON transaction_terms (id) WHERE visibility = 'public';
CREATE INDEX transaction_terms_offered_to_idx ON transaction_terms USING gin (offered_to_agent_ids);

-- Signatures: one per agent and term; they record which exact text was signed.
ALTER TABLE transaction_terms_signatures RENAME COLUMN terms_sha256 TO signed_content_sha256;
ALTER TABLE transaction_terms_signatures
    ADD CONSTRAINT transaction_terms_signatures_one_per_signer_key
        UNIQUE (transaction_term_id, signed_by_agent_id),
    ADD CONSTRAINT transaction_terms_signatures_signature_method_check CHECK (length(signature_method) <= 64);

-- Certificates: a hash chain. The unique sequence and the unique predecessor hash make a fork
-- impossible even for a writer that skipped the application's lock.
ALTER TABLE committed_trust_certificates
    ADD COLUMN ledger_seq bigint NOT NULL
        CONSTRAINT committed_trust_certificates_ledger_seq_key UNIQUE
        CONSTRAINT committed_trust_certificates_ledger_seq_check CHECK (ledger_seq >= 1),
    ADD COLUMN prev_hash text NOT NULL
        CONSTRAINT committed_trust_certificates_prev_hash_key UNIQUE
        CONSTRAINT committed_trust_certificates_prev_hash_check CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
    ADD COLUMN entry_hash text NOT NULL
        CONSTRAINT committed_trust_certificates_entry_hash_key UNIQUE
        CONSTRAINT committed_trust_certificates_entry_hash_check CHECK (entry_hash ~ '^[0-9a-f]{64}$');
CREATE INDEX committed_trust_certificates_currency_idx ON committed_trust_certificates (currency_code, id);
CREATE INDEX committed_trust_certificates_signature_idx
    ON committed_trust_certificates (transaction_terms_signature_id, id);
