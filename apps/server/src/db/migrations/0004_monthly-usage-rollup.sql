CREATE TABLE "monthly_usage" (
	"sim_iccid" text NOT NULL,
	"month" date NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "monthly_usage_sim_iccid_month_pk" PRIMARY KEY("sim_iccid","month")
);
--> statement-breakpoint
ALTER TABLE "monthly_usage" ADD CONSTRAINT "monthly_usage_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Kept equal to the sum of daily_usage per SIM and month by this trigger, whoever writes the
-- daily rows (usage jobs, platform sync, seeds), so the dashboard reads one row per camera.
CREATE FUNCTION roll_up_daily_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    UPDATE monthly_usage SET bytes = bytes - OLD.bytes
    WHERE sim_iccid = OLD.sim_iccid AND month = date_trunc('month', OLD.day::timestamp)::date;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO monthly_usage (sim_iccid, month, bytes)
    VALUES (NEW.sim_iccid, date_trunc('month', NEW.day::timestamp)::date, NEW.bytes)
    ON CONFLICT (sim_iccid, month) DO UPDATE SET bytes = monthly_usage.bytes + EXCLUDED.bytes;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER daily_usage_monthly_rollup AFTER INSERT OR UPDATE OR DELETE ON daily_usage
  FOR EACH ROW EXECUTE FUNCTION roll_up_daily_usage();
--> statement-breakpoint
INSERT INTO monthly_usage (sim_iccid, month, bytes)
  SELECT sim_iccid, date_trunc('month', day::timestamp)::date, sum(bytes)
  FROM daily_usage GROUP BY 1, 2;
