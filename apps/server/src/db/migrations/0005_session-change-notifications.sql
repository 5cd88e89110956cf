-- Session cache invalidation (docs/decisions/065): every change that ends a session or alters
-- what a bearer token resolves to sends NOTIFY session_changes with the session's token hash (the
-- key of each process's session cache), or '*' when a staff member's role or e-mail changes.
-- Whoever makes the change, in whichever process, every process evicts at once. The touch of
-- last_seen_at (once a minute per active session) changes nothing cached and notifies nobody.
CREATE FUNCTION notify_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('session_changes', OLD.token_hash);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER sessions_session_changes AFTER UPDATE ON sessions
  FOR EACH ROW
  WHEN (
    ROW(OLD.token_hash, OLD.role, OLD.customer_id, OLD.staff_id, OLD.parent_session_id,
        OLD.expires_at, OLD.idle_timeout_seconds, OLD.revoked_at)
    IS DISTINCT FROM
    ROW(NEW.token_hash, NEW.role, NEW.customer_id, NEW.staff_id, NEW.parent_session_id,
        NEW.expires_at, NEW.idle_timeout_seconds, NEW.revoked_at)
  )
  EXECUTE FUNCTION notify_session_change();
--> statement-breakpoint
-- Deleting a customer or a staff member deletes their sessions (on delete cascade), which fires
-- this too. Already revoked sessions are refused anyway: the hourly purge of them stays quiet.
CREATE TRIGGER sessions_session_deletes AFTER DELETE ON sessions
  FOR EACH ROW
  WHEN (OLD.revoked_at IS NULL)
  EXECUTE FUNCTION notify_session_change();
--> statement-breakpoint
CREATE FUNCTION notify_session_change_from_customer() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('session_changes', token_hash)
    FROM sessions
    WHERE customer_id = NEW.id AND revoked_at IS NULL;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER customers_session_changes AFTER UPDATE OF email ON customers
  FOR EACH ROW
  WHEN (OLD.email IS DISTINCT FROM NEW.email)
  EXECUTE FUNCTION notify_session_change_from_customer();
--> statement-breakpoint
-- Staff are few and change rarely; sessions has no index on staff_id, so clear every cache.
CREATE FUNCTION notify_session_change_everyone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('session_changes', '*');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER staff_session_changes AFTER UPDATE OF email, role ON staff
  FOR EACH ROW
  WHEN (OLD.email IS DISTINCT FROM NEW.email OR OLD.role IS DISTINCT FROM NEW.role)
  EXECUTE FUNCTION notify_session_change_everyone();
