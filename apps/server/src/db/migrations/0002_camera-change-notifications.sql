-- Camera-list cache invalidation (docs/decisions/012): every change that alters what
-- GET /api/cameras/plansV2 answers sends NOTIFY camera_changes with the customer's id, or '*'
-- for usage (the usage jobs touch every SIM at once). PostgreSQL folds identical notifications
-- of one transaction into one, so a bulk write notifies once.
CREATE FUNCTION notify_camera_change_from_sim() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.customer_id IS NOT NULL THEN
    PERFORM pg_notify('camera_changes', OLD.customer_id::text);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.customer_id IS NOT NULL THEN
    PERFORM pg_notify('camera_changes', NEW.customer_id::text);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER sims_camera_changes AFTER INSERT OR UPDATE OR DELETE ON sims
  FOR EACH ROW EXECUTE FUNCTION notify_camera_change_from_sim();
--> statement-breakpoint
CREATE FUNCTION notify_camera_change_from_subscription() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  affected_iccid text;
  owner uuid;
BEGIN
  FOREACH affected_iccid IN ARRAY ARRAY[
    CASE WHEN TG_OP IN ('UPDATE', 'DELETE') THEN OLD.sim_iccid END,
    CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN NEW.sim_iccid END
  ] LOOP
    IF affected_iccid IS NOT NULL THEN
      SELECT customer_id INTO owner FROM sims WHERE iccid = affected_iccid;
      IF owner IS NOT NULL THEN
        PERFORM pg_notify('camera_changes', owner::text);
      END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER subscriptions_camera_changes AFTER INSERT OR UPDATE OR DELETE ON subscriptions
  FOR EACH ROW EXECUTE FUNCTION notify_camera_change_from_subscription();
--> statement-breakpoint
CREATE FUNCTION notify_camera_change_everyone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('camera_changes', '*');
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER daily_usage_camera_changes AFTER INSERT OR UPDATE OR DELETE ON daily_usage
  FOR EACH ROW EXECUTE FUNCTION notify_camera_change_everyone();
--> statement-breakpoint
CREATE TRIGGER products_camera_changes AFTER INSERT OR UPDATE OR DELETE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION notify_camera_change_everyone();
--> statement-breakpoint
CREATE TRIGGER prices_camera_changes AFTER INSERT OR UPDATE OR DELETE ON prices
  FOR EACH STATEMENT EXECUTE FUNCTION notify_camera_change_everyone();
