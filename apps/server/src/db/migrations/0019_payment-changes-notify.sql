-- An overdue camera's card says why its bill is unpaid from the saved cards and the unpaid
-- invoices (docs/decisions/113), so a card saved, changed or removed, or an invoice paid, also
-- drops the customer's cached camera list (docs/decisions/012): NOTIFY camera_changes with the
-- portal customer's id. New invoices come with a subscription change, which already notifies.
CREATE FUNCTION notify_camera_change_from_billing_customer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  affected text;
  owner uuid;
BEGIN
  FOREACH affected IN ARRAY ARRAY[
    CASE WHEN TG_OP IN ('UPDATE', 'DELETE') THEN OLD.billing_customer_id END,
    CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN NEW.billing_customer_id END
  ] LOOP
    IF affected IS NOT NULL THEN
      SELECT customer_id INTO owner FROM billing_customers WHERE id = affected;
      IF owner IS NOT NULL THEN
        PERFORM pg_notify('camera_changes', owner::text);
      END IF;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER payment_methods_camera_changes AFTER INSERT OR UPDATE OR DELETE ON payment_methods
  FOR EACH ROW EXECUTE FUNCTION notify_camera_change_from_billing_customer();
--> statement-breakpoint
CREATE TRIGGER invoices_camera_changes AFTER UPDATE OF status, amount_paid ON invoices
  FOR EACH ROW EXECUTE FUNCTION notify_camera_change_from_billing_customer();
