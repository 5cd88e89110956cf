-- The dashboard's "Livestreaming" filter reads livestreams.is_active (docs/decisions/140), so a
-- livestream switched on or off, made or removed, also drops the customer's cached camera list
-- (docs/decisions/012): NOTIFY camera_changes with the SIM's customer, as for a subscription.
CREATE TRIGGER livestreams_camera_changes AFTER INSERT OR DELETE OR UPDATE OF is_active, sim_iccid
  ON livestreams
  FOR EACH ROW EXECUTE FUNCTION notify_camera_change_from_subscription();
