-- Downloads look attachments up by content hash.
CREATE INDEX space_time_entry_attachments_sha256_idx ON space_time_entry_attachments (sha256);
