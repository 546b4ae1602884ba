-- Change events for GraphQL subscriptions, sent by the database itself so that every writer
-- (any server process, the transformer, a manual fix) announces its changes, and every server
-- process listening on the channel hears them. Payloads carry ids (and a canonical record's point,
-- so geo-fenced feeds filter without a read); a listener fetches what it publishes.
-- NOTIFY is transactional: nothing is announced for a rolled-back change.

CREATE FUNCTION notify_entry_finished() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('strs_changes', json_build_object(
        'kind', 'entry_processed', 'id', NEW.id, 'agent_id', NEW.agent_id)::text);
    RETURN NULL;
END $$;

-- Only the step out of `pending` is an event: later status edits (archiving) are not processing.
CREATE TRIGGER space_time_entries_finished_notify
    AFTER UPDATE OF status ON space_time_entries
    FOR EACH ROW WHEN (OLD.status = 'pending' AND NEW.status <> 'pending')
    EXECUTE FUNCTION notify_entry_finished();

CREATE FUNCTION notify_canonical_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('strs_changes', json_build_object(
        'kind', 'canonical_changed', 'table', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME,
        'id', NEW.id, 'latitude', NEW.location_lat, 'longitude', NEW.location_lng)::text);
    RETURN NULL;
END $$;

CREATE TRIGGER entities_changed_notify AFTER INSERT OR UPDATE ON canonical.entities
    FOR EACH ROW EXECUTE FUNCTION notify_canonical_changed();
CREATE TRIGGER listings_changed_notify AFTER INSERT OR UPDATE ON canonical.listings
    FOR EACH ROW EXECUTE FUNCTION notify_canonical_changed();
CREATE TRIGGER requests_changed_notify AFTER INSERT OR UPDATE ON canonical.requests
    FOR EACH ROW EXECUTE FUNCTION notify_canonical_changed();

CREATE FUNCTION notify_message_sent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('strs_changes', json_build_object(
        'kind', 'message_received', 'id', NEW.id, 'recipient_agent_id', NEW.recipient_agent_id)::text);
    RETURN NULL;
END $$;

CREATE TRIGGER messages_sent_notify AFTER INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION notify_message_sent();
