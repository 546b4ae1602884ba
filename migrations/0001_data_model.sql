-- The whole data model of the specification. Later migrations add behaviour, not tables.
-- Constraint names follow <table>_<cols>_<kind> so that src/db/constraints.rs can turn a violation
-- into a 422 (or 409) that names the offending field, never a 500.

CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE SCHEMA IF NOT EXISTS canonical;

-- array_to_string is only STABLE; generated search columns need an IMMUTABLE expression.
CREATE FUNCTION canonical.text_array_join(arr text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN coalesce(array_to_string(arr, ' '), '');

CREATE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at_tstamp_utc := now();
    RETURN NEW;
END $$;

-- Principals -----------------------------------------------------------------------------------
CREATE TABLE principals (
    id uuid PRIMARY KEY,
    principal_type text NOT NULL
        CONSTRAINT principals_principal_type_check
        CHECK (principal_type IN ('person', 'company', 'public_body', 'internal', 'customer', 'supplier')),
    display_name text NOT NULL
        CONSTRAINT principals_display_name_check CHECK (length(btrim(display_name)) BETWEEN 1 AND 200),
    legal_name text CONSTRAINT principals_legal_name_check CHECK (length(legal_name) <= 300),
    email text CONSTRAINT principals_email_check CHECK (length(email) <= 320),
    phone text CONSTRAINT principals_phone_check CHECK (length(phone) <= 64),
    website_url text CONSTRAINT principals_website_url_check CHECK (length(website_url) <= 2048),
    metadata jsonb NOT NULL DEFAULT '{}'
        CONSTRAINT principals_metadata_check CHECK (jsonb_typeof(metadata) = 'object'),
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER principals_updated_at BEFORE UPDATE ON principals
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Agents ---------------------------------------------------------------------------------------
CREATE TABLE agents (
    id uuid PRIMARY KEY,
    principal_id uuid CONSTRAINT agents_principal_id_fkey REFERENCES principals (id),
    agent_type text NOT NULL
        CONSTRAINT agents_agent_type_check
        CHECK (agent_type IN ('human', 'scraper', 'api_agent', 'supplier_agent', 'customer_agent', 'sensor')),
    display_name text NOT NULL
        CONSTRAINT agents_display_name_check CHECK (length(btrim(display_name)) BETWEEN 1 AND 200),
    agent_handle text NOT NULL
        CONSTRAINT agents_agent_handle_check CHECK (agent_handle ~ '^[a-z][a-z0-9_]{2,31}$'),
    description text CONSTRAINT agents_description_check CHECK (length(description) <= 4000),
    status text NOT NULL DEFAULT 'active'
        CONSTRAINT agents_status_check CHECK (status IN ('active', 'paused', 'disabled')),
    score_trust numeric NOT NULL DEFAULT 0.5
        CONSTRAINT agents_score_trust_check CHECK (score_trust BETWEEN 0 AND 1),
    score_reputation numeric NOT NULL DEFAULT 0.5
        CONSTRAINT agents_score_reputation_check CHECK (score_reputation BETWEEN 0 AND 1),
    truth_certificate_amount_gbp numeric NOT NULL DEFAULT 0
        CONSTRAINT agents_truth_certificate_amount_gbp_check CHECK (truth_certificate_amount_gbp >= 0),
    capabilities jsonb NOT NULL DEFAULT '{}'
        CONSTRAINT agents_capabilities_check CHECK (jsonb_typeof(capabilities) = 'object'),
    metadata jsonb NOT NULL DEFAULT '{}'
        CONSTRAINT agents_metadata_check CHECK (jsonb_typeof(metadata) = 'object'),
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agents_agent_handle_key UNIQUE (agent_handle)
);
CREATE INDEX agents_principal_id_idx ON agents (principal_id);
CREATE TRIGGER agents_updated_at BEFORE UPDATE ON agents
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- API keys: only a SHA-256 of the raw key is stored; the raw key is shown once. --------------
CREATE TABLE agent_api_keys (
    id uuid PRIMARY KEY,
    agent_id uuid NOT NULL CONSTRAINT agent_api_keys_agent_id_fkey REFERENCES agents (id) ON DELETE CASCADE,
    key_hash bytea NOT NULL CONSTRAINT agent_api_keys_key_hash_check CHECK (length(key_hash) = 32),
    key_prefix text NOT NULL,
    status text NOT NULL DEFAULT 'active'
        CONSTRAINT agent_api_keys_status_check CHECK (status IN ('active', 'revoked')),
    scopes text[] NOT NULL DEFAULT ARRAY['space_time_entries:write'],
    last_used_at_tstamp_utc timestamptz,
    expires_at_tstamp_utc timestamptz,
    revoked_at_tstamp_utc timestamptz,
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT agent_api_keys_key_hash_key UNIQUE (key_hash)
);
CREATE INDEX agent_api_keys_agent_id_idx ON agent_api_keys (agent_id);
CREATE TRIGGER agent_api_keys_updated_at BEFORE UPDATE ON agent_api_keys
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Transformer runs (one row per batch / on-demand call) ------------------------------------
CREATE TABLE transformer_runs (
    id uuid PRIMARY KEY,
    transformer_name text NOT NULL DEFAULT 'SpaceTimeEntryTransformer',
    transformer_version text NOT NULL,
    trigger text NOT NULL CONSTRAINT transformer_runs_trigger_check CHECK (trigger IN ('worker', 'api', 'cli')),
    entries_processed integer NOT NULL DEFAULT 0,
    started_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    finished_at_tstamp_utc timestamptz
);

-- Space-time entries ----------------------------------------------------------------------------
CREATE TABLE space_time_entries (
    id uuid PRIMARY KEY,
    agent_id uuid NOT NULL CONSTRAINT space_time_entries_agent_id_fkey REFERENCES agents (id),
    entry_type text NOT NULL
        CONSTRAINT space_time_entries_entry_type_check
        CHECK (entry_type IN ('entity', 'request', 'listing', 'observation')),
    entry_subtype text CONSTRAINT space_time_entries_entry_subtype_check CHECK (length(entry_subtype) <= 100),
    entry_intent text NOT NULL DEFAULT 'observe'
        CONSTRAINT space_time_entries_entry_intent_check
        CHECK (entry_intent IN ('observe', 'submit', 'add_context', 'correct', 'claim', 'verify', 'withdraw')),
    status text NOT NULL DEFAULT 'pending'
        CONSTRAINT space_time_entries_status_check
        CHECK (status IN ('pending', 'active', 'processed', 'superseded', 'rejected', 'review_required', 'archived')),
    latitude double precision NOT NULL
        CONSTRAINT space_time_entries_latitude_check CHECK (latitude BETWEEN -90 AND 90),
    longitude double precision NOT NULL
        CONSTRAINT space_time_entries_longitude_check CHECK (longitude BETWEEN -180 AND 180),
    location geography(Point, 4326) GENERATED ALWAYS AS
        (ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography) STORED,
    observed_at_tstamp_utc timestamptz,
    source_type text CONSTRAINT space_time_entries_source_type_check CHECK (length(source_type) <= 100),
    source_ref text CONSTRAINT space_time_entries_source_ref_check CHECK (length(source_ref) <= 2048),
    target_canonical_table text
        CONSTRAINT space_time_entries_target_canonical_table_check
        CHECK (target_canonical_table IN ('canonical.entities', 'canonical.listings', 'canonical.requests')),
    target_canonical_id uuid,
    geohash text CONSTRAINT space_time_entries_geohash_check CHECK (geohash ~ '^[0-9b-hjkmnp-z]{1,12}$'),
    location_text text CONSTRAINT space_time_entries_location_text_check CHECK (length(location_text) <= 1000),
    valid_from_tstamp_utc timestamptz,
    valid_to_tstamp_utc timestamptz,
    idempotency_key text CONSTRAINT space_time_entries_idempotency_key_check
        CHECK (length(idempotency_key) BETWEEN 1 AND 512),
    context jsonb NOT NULL DEFAULT '{}'
        CONSTRAINT space_time_entries_context_check CHECK (jsonb_typeof(context) = 'object'),
    score_confidence numeric NOT NULL DEFAULT 0.5
        CONSTRAINT space_time_entries_score_confidence_check CHECK (score_confidence BETWEEN 0 AND 1),
    -- outcome of processing, written by the transformer in the same transaction as the canonical change
    canonical_table text
        CONSTRAINT space_time_entries_canonical_table_check
        CHECK (canonical_table IN ('canonical.entities', 'canonical.listings', 'canonical.requests')),
    canonical_id uuid,
    link_type text
        CONSTRAINT space_time_entries_link_type_check
        CHECK (link_type IN ('created', 'updated', 'matched', 'merged', 'supporting_evidence', 'duplicate_of')),
    processing_reason text,
    processing_error text,
    transformer_run_id uuid CONSTRAINT space_time_entries_transformer_run_id_fkey REFERENCES transformer_runs (id),
    processed_at_tstamp_utc timestamptz,
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT space_time_entries_target_check
        CHECK ((target_canonical_table IS NULL) = (target_canonical_id IS NULL)),
    CONSTRAINT space_time_entries_valid_window_check
        CHECK (valid_from_tstamp_utc IS NULL OR valid_to_tstamp_utc IS NULL
               OR valid_from_tstamp_utc <= valid_to_tstamp_utc),
    CONSTRAINT space_time_entries_agent_id_idempotency_key_key UNIQUE (agent_id, idempotency_key)
);
CREATE INDEX space_time_entries_pending_idx ON space_time_entries (id) WHERE status = 'pending';
CREATE INDEX space_time_entries_status_idx ON space_time_entries (status, id);
CREATE INDEX space_time_entries_agent_id_idx ON space_time_entries (agent_id, id);
CREATE INDEX space_time_entries_location_idx ON space_time_entries USING gist (location);
CREATE INDEX space_time_entries_canonical_idx ON space_time_entries (canonical_table, canonical_id);
CREATE TRIGGER space_time_entries_updated_at BEFORE UPDATE ON space_time_entries
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE space_time_entry_attachments (
    id uuid PRIMARY KEY,
    space_time_entry_id uuid NOT NULL
        CONSTRAINT space_time_entry_attachments_space_time_entry_id_fkey
        REFERENCES space_time_entries (id) ON DELETE CASCADE,
    position integer NOT NULL,
    uri text NOT NULL,
    media_type text NOT NULL
        CONSTRAINT space_time_entry_attachments_media_type_check
        CHECK (media_type IN ('application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/gif', 'text/plain')),
    size_bytes bigint NOT NULL CONSTRAINT space_time_entry_attachments_size_bytes_check CHECK (size_bytes >= 0),
    sha256 text NOT NULL CONSTRAINT space_time_entry_attachments_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    filename text CONSTRAINT space_time_entry_attachments_filename_check CHECK (length(filename) <= 255),
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT space_time_entry_attachments_entry_position_key UNIQUE (space_time_entry_id, position)
);

-- Canonical records -------------------------------------------------------------------------
-- Shared columns: location (lat/lng + generated geography), status, scores, context layers,
-- and the normalised identity keys the transformer matches on.
CREATE TABLE canonical.entities (
    id uuid PRIMARY KEY,
    entity_type text NOT NULL DEFAULT 'company'
        CONSTRAINT entities_entity_type_check CHECK (length(btrim(entity_type)) BETWEEN 1 AND 100),
    display_name text NOT NULL
        CONSTRAINT entities_display_name_check CHECK (length(btrim(display_name)) BETWEEN 1 AND 300),
    legal_name text,
    description text,
    website_url text,
    email text,
    phone text,
    address_text text,
    city text,
    country_code text CONSTRAINT entities_country_code_check CHECK (country_code ~ '^[A-Z]{2}$'),
    categories text[] NOT NULL DEFAULT '{}',
    tags text[] NOT NULL DEFAULT '{}',
    link_urls jsonb NOT NULL DEFAULT '[]'
        CONSTRAINT entities_link_urls_check CHECK (jsonb_typeof(link_urls) = 'array'),
    contact_agent_id uuid CONSTRAINT entities_contact_agent_id_fkey REFERENCES agents (id),
    created_by_agent_id uuid CONSTRAINT entities_created_by_agent_id_fkey REFERENCES agents (id),
    location_lat double precision NOT NULL
        CONSTRAINT entities_location_lat_check CHECK (location_lat BETWEEN -90 AND 90),
    location_lng double precision NOT NULL
        CONSTRAINT entities_location_lng_check CHECK (location_lng BETWEEN -180 AND 180),
    location geography(Point, 4326) GENERATED ALWAYS AS
        (ST_SetSRID(ST_MakePoint(location_lng, location_lat), 4326)::geography) STORED,
    status text NOT NULL DEFAULT 'active'
        CONSTRAINT entities_status_check CHECK (status IN ('active', 'review_required', 'archived', 'withdrawn')),
    score_data_richness numeric NOT NULL DEFAULT 0
        CONSTRAINT entities_score_data_richness_check CHECK (score_data_richness BETWEEN 0 AND 1),
    score_agent_reputation numeric
        CONSTRAINT entities_score_agent_reputation_check CHECK (score_agent_reputation BETWEEN 0 AND 1),
    score_signal numeric CONSTRAINT entities_score_signal_check CHECK (score_signal BETWEEN 0 AND 1),
    score_confidence numeric NOT NULL DEFAULT 0.5
        CONSTRAINT entities_score_confidence_check CHECK (score_confidence BETWEEN 0 AND 1),
    context_l0_routing jsonb NOT NULL DEFAULT '{}',
    context_l1_common jsonb NOT NULL DEFAULT '{}',
    context_l2_specific jsonb NOT NULL DEFAULT '{}',
    context_l2_available_features text[] NOT NULL DEFAULT '{}',
    source_ref text,
    website_key text,
    phone_key text,
    name_key text,
    -- per-field provenance: which entry, agent, observation time and confidence set each field
    field_evidence jsonb NOT NULL DEFAULT '{}',
    search_document tsvector GENERATED ALWAYS AS (to_tsvector('simple',
        coalesce(display_name, '') || ' ' || coalesce(legal_name, '') || ' ' || coalesce(description, '') || ' '
        || canonical.text_array_join(categories) || ' ' || canonical.text_array_join(tags) || ' '
        || coalesce(city, '') || ' ' || coalesce(entity_type, ''))) STORED,
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX entities_location_idx ON canonical.entities USING gist (location);
CREATE INDEX entities_search_document_idx ON canonical.entities USING gin (search_document);
CREATE INDEX entities_display_name_trgm_idx ON canonical.entities USING gin (display_name gin_trgm_ops);
CREATE INDEX entities_website_key_idx ON canonical.entities (website_key) WHERE website_key IS NOT NULL;
CREATE INDEX entities_phone_key_idx ON canonical.entities (phone_key) WHERE phone_key IS NOT NULL;
CREATE INDEX entities_name_key_idx ON canonical.entities (name_key);
CREATE INDEX entities_source_ref_idx ON canonical.entities (source_ref) WHERE source_ref IS NOT NULL;
CREATE INDEX entities_status_idx ON canonical.entities (status, id);
CREATE TRIGGER entities_updated_at BEFORE UPDATE ON canonical.entities
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE canonical.listings (
    id uuid PRIMARY KEY,
    created_by_agent_id uuid CONSTRAINT listings_created_by_agent_id_fkey REFERENCES agents (id),
    principal_id uuid CONSTRAINT listings_principal_id_fkey REFERENCES principals (id),
    provider_entity_id uuid CONSTRAINT listings_provider_entity_id_fkey REFERENCES canonical.entities (id),
    contact_agent_id uuid CONSTRAINT listings_contact_agent_id_fkey REFERENCES agents (id),
    listing_type text NOT NULL
        CONSTRAINT listings_listing_type_check CHECK (length(btrim(listing_type)) BETWEEN 1 AND 100),
    title text NOT NULL CONSTRAINT listings_title_check CHECK (length(btrim(title)) BETWEEN 1 AND 300),
    description text,
    categories text[] NOT NULL DEFAULT '{}',
    link_urls jsonb NOT NULL DEFAULT '[]'
        CONSTRAINT listings_link_urls_check CHECK (jsonb_typeof(link_urls) = 'array'),
    price_amount numeric CONSTRAINT listings_price_amount_check CHECK (price_amount >= 0),
    currency_code text CONSTRAINT listings_currency_code_check CHECK (currency_code ~ '^[A-Z]{3}$'),
    availability_status text,
    location_lat double precision NOT NULL
        CONSTRAINT listings_location_lat_check CHECK (location_lat BETWEEN -90 AND 90),
    location_lng double precision NOT NULL
        CONSTRAINT listings_location_lng_check CHECK (location_lng BETWEEN -180 AND 180),
    location geography(Point, 4326) GENERATED ALWAYS AS
        (ST_SetSRID(ST_MakePoint(location_lng, location_lat), 4326)::geography) STORED,
    address_text text,
    city text,
    country_code text CONSTRAINT listings_country_code_check CHECK (country_code ~ '^[A-Z]{2}$'),
    valid_from_tstamp_utc timestamptz,
    valid_to_tstamp_utc timestamptz,
    status text NOT NULL DEFAULT 'active'
        CONSTRAINT listings_status_check CHECK (status IN ('active', 'review_required', 'archived', 'withdrawn')),
    score_data_richness numeric NOT NULL DEFAULT 0
        CONSTRAINT listings_score_data_richness_check CHECK (score_data_richness BETWEEN 0 AND 1),
    score_agent_reputation numeric
        CONSTRAINT listings_score_agent_reputation_check CHECK (score_agent_reputation BETWEEN 0 AND 1),
    score_signal numeric CONSTRAINT listings_score_signal_check CHECK (score_signal BETWEEN 0 AND 1),
    score_confidence numeric NOT NULL DEFAULT 0.5
        CONSTRAINT listings_score_confidence_check CHECK (score_confidence BETWEEN 0 AND 1),
    context_l0_routing jsonb NOT NULL DEFAULT '{}',
    context_l1_common jsonb NOT NULL DEFAULT '{}',
    context_l2_specific jsonb NOT NULL DEFAULT '{}',
    context_l2_available_features text[] NOT NULL DEFAULT '{}',
    source_ref text,
    title_key text,
    field_evidence jsonb NOT NULL DEFAULT '{}',
    search_document tsvector GENERATED ALWAYS AS (to_tsvector('simple',
        coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || canonical.text_array_join(categories)
        || ' ' || coalesce(city, '') || ' ' || coalesce(listing_type, ''))) STORED,
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT listings_valid_window_check
        CHECK (valid_from_tstamp_utc IS NULL OR valid_to_tstamp_utc IS NULL
               OR valid_from_tstamp_utc <= valid_to_tstamp_utc)
);
CREATE INDEX listings_location_idx ON canonical.listings USING gist (location);
CREATE INDEX listings_search_document_idx ON canonical.listings USING gin (search_document);
CREATE INDEX listings_title_trgm_idx ON canonical.listings USING gin (title gin_trgm_ops);
CREATE INDEX listings_provider_title_idx ON canonical.listings (provider_entity_id, title_key);
CREATE INDEX listings_source_ref_idx ON canonical.listings (source_ref) WHERE source_ref IS NOT NULL;
CREATE INDEX listings_status_idx ON canonical.listings (status, id);
CREATE TRIGGER listings_updated_at BEFORE UPDATE ON canonical.listings
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Canonical requests mirror listings from the demand side (see docs/decisions/canonical-requests.md).
CREATE TABLE canonical.requests (
    id uuid PRIMARY KEY,
    created_by_agent_id uuid CONSTRAINT requests_created_by_agent_id_fkey REFERENCES agents (id),
    principal_id uuid CONSTRAINT requests_principal_id_fkey REFERENCES principals (id),
    requester_entity_id uuid CONSTRAINT requests_requester_entity_id_fkey REFERENCES canonical.entities (id),
    contact_agent_id uuid CONSTRAINT requests_contact_agent_id_fkey REFERENCES agents (id),
    request_type text NOT NULL
        CONSTRAINT requests_request_type_check CHECK (length(btrim(request_type)) BETWEEN 1 AND 100),
    title text NOT NULL CONSTRAINT requests_title_check CHECK (length(btrim(title)) BETWEEN 1 AND 300),
    description text,
    categories text[] NOT NULL DEFAULT '{}',
    link_urls jsonb NOT NULL DEFAULT '[]'
        CONSTRAINT requests_link_urls_check CHECK (jsonb_typeof(link_urls) = 'array'),
    budget_amount numeric CONSTRAINT requests_budget_amount_check CHECK (budget_amount >= 0),
    currency_code text CONSTRAINT requests_currency_code_check CHECK (currency_code ~ '^[A-Z]{3}$'),
    needed_from_tstamp_utc timestamptz,
    needed_by_tstamp_utc timestamptz,
    location_lat double precision NOT NULL
        CONSTRAINT requests_location_lat_check CHECK (location_lat BETWEEN -90 AND 90),
    location_lng double precision NOT NULL
        CONSTRAINT requests_location_lng_check CHECK (location_lng BETWEEN -180 AND 180),
    location geography(Point, 4326) GENERATED ALWAYS AS
        (ST_SetSRID(ST_MakePoint(location_lng, location_lat), 4326)::geography) STORED,
    address_text text,
    city text,
    country_code text CONSTRAINT requests_country_code_check CHECK (country_code ~ '^[A-Z]{2}$'),
    status text NOT NULL DEFAULT 'active'
        CONSTRAINT requests_status_check
        CHECK (status IN ('active', 'fulfilled', 'review_required', 'archived', 'withdrawn')),
    score_data_richness numeric NOT NULL DEFAULT 0
        CONSTRAINT requests_score_data_richness_check CHECK (score_data_richness BETWEEN 0 AND 1),
    score_agent_reputation numeric
        CONSTRAINT requests_score_agent_reputation_check CHECK (score_agent_reputation BETWEEN 0 AND 1),
    score_signal numeric CONSTRAINT requests_score_signal_check CHECK (score_signal BETWEEN 0 AND 1),
    score_confidence numeric NOT NULL DEFAULT 0.5
        CONSTRAINT requests_score_confidence_check CHECK (score_confidence BETWEEN 0 AND 1),
    context_l0_routing jsonb NOT NULL DEFAULT '{}',
    context_l1_common jsonb NOT NULL DEFAULT '{}',
    context_l2_specific jsonb NOT NULL DEFAULT '{}',
    context_l2_available_features text[] NOT NULL DEFAULT '{}',
    source_ref text,
    title_key text,
    field_evidence jsonb NOT NULL DEFAULT '{}',
    search_document tsvector GENERATED ALWAYS AS (to_tsvector('simple',
        coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || canonical.text_array_join(categories)
        || ' ' || coalesce(city, '') || ' ' || coalesce(request_type, ''))) STORED,
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT requests_needed_window_check
        CHECK (needed_from_tstamp_utc IS NULL OR needed_by_tstamp_utc IS NULL
               OR needed_from_tstamp_utc <= needed_by_tstamp_utc)
);
CREATE INDEX requests_location_idx ON canonical.requests USING gist (location);
CREATE INDEX requests_search_document_idx ON canonical.requests USING gin (search_document);
CREATE INDEX requests_title_trgm_idx ON canonical.requests USING gin (title gin_trgm_ops);
CREATE INDEX requests_title_key_idx ON canonical.requests (requester_entity_id, title_key);
CREATE INDEX requests_source_ref_idx ON canonical.requests (source_ref) WHERE source_ref IS NOT NULL;
CREATE INDEX requests_status_idx ON canonical.requests (status, id);
CREATE TRIGGER requests_updated_at BEFORE UPDATE ON canonical.requests
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Provenance -----------------------------------------------------------------------------------
CREATE TABLE canonical_link_contributions (
    id uuid PRIMARY KEY,
    source_space_time_entry_id uuid NOT NULL
        CONSTRAINT canonical_link_contributions_source_space_time_entry_id_fkey REFERENCES space_time_entries (id),
    target_canonical_table text NOT NULL
        CONSTRAINT canonical_link_contributions_target_canonical_table_check
        CHECK (target_canonical_table IN ('canonical.entities', 'canonical.listings', 'canonical.requests')),
    target_canonical_id uuid NOT NULL,
    link_type text NOT NULL
        CONSTRAINT canonical_link_contributions_link_type_check
        CHECK (link_type IN ('created', 'updated', 'matched', 'merged', 'supporting_evidence', 'duplicate_of')),
    contribution_weight numeric NOT NULL DEFAULT 1
        CONSTRAINT canonical_link_contributions_contribution_weight_check CHECK (contribution_weight >= 0),
    information_power numeric DEFAULT 0.5
        CONSTRAINT canonical_link_contributions_information_power_check CHECK (information_power BETWEEN 0 AND 1),
    score_confidence numeric NOT NULL DEFAULT 0.5
        CONSTRAINT canonical_link_contributions_score_confidence_check CHECK (score_confidence BETWEEN 0 AND 1),
    transformer_name text NOT NULL DEFAULT 'SpaceTimeEntryTransformer',
    transformer_version text,
    transformer_run_id uuid NOT NULL
        CONSTRAINT canonical_link_contributions_transformer_run_id_fkey REFERENCES transformer_runs (id),
    reason text,
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX canonical_link_contributions_target_idx
    ON canonical_link_contributions (target_canonical_table, target_canonical_id, id);
CREATE INDEX canonical_link_contributions_entry_idx ON canonical_link_contributions (source_space_time_entry_id);

-- Messages -------------------------------------------------------------------------------------
CREATE TABLE messages (
    id uuid PRIMARY KEY,
    sender_agent_id uuid NOT NULL CONSTRAINT messages_sender_agent_id_fkey REFERENCES agents (id),
    recipient_agent_id uuid NOT NULL CONSTRAINT messages_recipient_agent_id_fkey REFERENCES agents (id),
    reply_to_message_id uuid CONSTRAINT messages_reply_to_message_id_fkey REFERENCES messages (id),
    target_schema text,
    target_table text,
    target_id uuid,
    message_content text NOT NULL
        CONSTRAINT messages_message_content_check CHECK (length(message_content) BETWEEN 1 AND 65536),
    attachments jsonb NOT NULL DEFAULT '[]'
        CONSTRAINT messages_attachments_check CHECK (jsonb_typeof(attachments) = 'array'),
    read_at_tstamp_utc timestamptz,
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_recipient_idx ON messages (recipient_agent_id, id);
CREATE INDEX messages_sender_idx ON messages (sender_agent_id, id);
CREATE TRIGGER messages_updated_at BEFORE UPDATE ON messages
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- Transaction terms, signatures, certificates (see docs/decisions/transaction-terms.md) --------
CREATE TABLE transaction_terms (
    id uuid PRIMARY KEY,
    created_by_agent_id uuid NOT NULL
        CONSTRAINT transaction_terms_created_by_agent_id_fkey REFERENCES agents (id),
    title text NOT NULL CONSTRAINT transaction_terms_title_check CHECK (length(btrim(title)) BETWEEN 1 AND 300),
    terms_text text NOT NULL
        CONSTRAINT transaction_terms_terms_text_check CHECK (length(terms_text) BETWEEN 1 AND 100000),
    terms_sha256 text NOT NULL,
    visibility text NOT NULL DEFAULT 'public'
        CONSTRAINT transaction_terms_visibility_check CHECK (visibility IN ('public', 'private')),
    currency_code text CONSTRAINT transaction_terms_currency_code_check CHECK (currency_code ~ '^[A-Z]{3}$'),
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transaction_terms_created_by_idx ON transaction_terms (created_by_agent_id, id);

CREATE TABLE transaction_terms_signatures (
    id uuid PRIMARY KEY,
    transaction_term_id uuid NOT NULL
        CONSTRAINT transaction_terms_signatures_transaction_term_id_fkey REFERENCES transaction_terms (id),
    signed_by_agent_id uuid NOT NULL
        CONSTRAINT transaction_terms_signatures_signed_by_agent_id_fkey REFERENCES agents (id),
    counterparty_agent_id uuid
        CONSTRAINT transaction_terms_signatures_counterparty_agent_id_fkey REFERENCES agents (id),
    signature text NOT NULL
        CONSTRAINT transaction_terms_signatures_signature_check CHECK (length(signature) BETWEEN 1 AND 8192),
    signature_method text,
    terms_sha256 text NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transaction_terms_signatures_term_idx ON transaction_terms_signatures (transaction_term_id, id);
CREATE INDEX transaction_terms_signatures_signer_idx ON transaction_terms_signatures (signed_by_agent_id, id);

CREATE TABLE committed_trust_certificates (
    id uuid PRIMARY KEY,
    transaction_terms_signature_id uuid NOT NULL
        CONSTRAINT committed_trust_certificates_transaction_terms_signature_id_fkey
        REFERENCES transaction_terms_signatures (id),
    agent_id uuid NOT NULL CONSTRAINT committed_trust_certificates_agent_id_fkey REFERENCES agents (id),
    currency_code text NOT NULL
        CONSTRAINT committed_trust_certificates_currency_code_check CHECK (currency_code ~ '^[A-Z]{3}$'),
    value_amount numeric NOT NULL
        CONSTRAINT committed_trust_certificates_value_amount_check CHECK (value_amount > 0),
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX committed_trust_certificates_agent_idx ON committed_trust_certificates (agent_id, id);

-- The ledger is append-only in the database itself, whatever the application does.
CREATE FUNCTION reject_certificate_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'committed trust certificates are immutable'
        USING ERRCODE = 'restrict_violation', CONSTRAINT = 'committed_trust_certificates_immutable';
END $$;
CREATE TRIGGER committed_trust_certificates_immutable
    BEFORE UPDATE OR DELETE ON committed_trust_certificates
    FOR EACH ROW EXECUTE FUNCTION reject_certificate_change();
CREATE TRIGGER committed_trust_certificates_no_truncate
    BEFORE TRUNCATE ON committed_trust_certificates
    FOR EACH STATEMENT EXECUTE FUNCTION reject_certificate_change();

-- Notes and signals: targets are canonical records or raw entries -----------------------------
CREATE TABLE notes (
    id uuid PRIMARY KEY,
    created_by_agent_id uuid CONSTRAINT notes_created_by_agent_id_fkey REFERENCES agents (id),
    parent_note_id uuid CONSTRAINT notes_parent_note_id_fkey REFERENCES notes (id),
    target_schema text NOT NULL,
    target_table text NOT NULL,
    target_id uuid NOT NULL,
    body text NOT NULL CONSTRAINT notes_body_check CHECK (length(btrim(body)) BETWEEN 1 AND 10000),
    visibility text NOT NULL DEFAULT 'internal'
        CONSTRAINT notes_visibility_check CHECK (visibility IN ('internal', 'public', 'principal_only')),
    author_principal_id uuid CONSTRAINT notes_author_principal_id_fkey REFERENCES principals (id),
    context jsonb NOT NULL DEFAULT '{}',
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT notes_target_check CHECK ((target_schema, target_table) IN
        (('canonical', 'entities'), ('canonical', 'listings'), ('canonical', 'requests'),
         ('public', 'space_time_entries')))
);
CREATE INDEX notes_target_idx ON notes (target_schema, target_table, target_id, id);
CREATE TRIGGER notes_updated_at BEFORE UPDATE ON notes
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE signals (
    id uuid PRIMARY KEY,
    created_by_agent_id uuid CONSTRAINT signals_created_by_agent_id_fkey REFERENCES agents (id),
    signal_type text NOT NULL
        CONSTRAINT signals_signal_type_check CHECK (signal_type IN
            ('confirm', 'reject', 'duplicate', 'stale', 'flag', 'boost_confidence', 'reduce_confidence')),
    target_schema text NOT NULL,
    target_table text NOT NULL,
    target_id uuid NOT NULL,
    duplicate_of_id uuid,
    weight numeric NOT NULL DEFAULT 1 CONSTRAINT signals_weight_check CHECK (weight BETWEEN 0 AND 1),
    reason text CONSTRAINT signals_reason_check CHECK (length(reason) <= 4000),
    context jsonb NOT NULL DEFAULT '{}',
    created_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    updated_at_tstamp_utc timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT signals_target_check CHECK ((target_schema, target_table) IN
        (('canonical', 'entities'), ('canonical', 'listings'), ('canonical', 'requests'),
         ('public', 'space_time_entries'))),
    CONSTRAINT signals_duplicate_of_id_check CHECK ((signal_type = 'duplicate') = (duplicate_of_id IS NOT NULL))
);
CREATE INDEX signals_target_idx ON signals (target_schema, target_table, target_id, id);
CREATE TRIGGER signals_updated_at BEFORE UPDATE ON signals
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
