-- Stripe's billing_cycle_anchor (docs/decisions/108). An existing subscription gets its start as
-- its anchor: its creation when its period still runs on the creation's time of day (its
-- renewals all came from it, even if a 31st drifted to the 28th), else its current period's start
-- (a change to another interval restarted the period, and the anchor with it).
ALTER TABLE "subscriptions" ADD COLUMN "billing_cycle_anchor" timestamp with time zone;--> statement-breakpoint
UPDATE "subscriptions" SET "billing_cycle_anchor" = CASE
  WHEN "created_at" <= "current_period_start"
   AND (date_trunc('second', "created_at") AT TIME ZONE 'UTC')::time
     = (date_trunc('second', "current_period_start") AT TIME ZONE 'UTC')::time
  THEN date_trunc('second', "created_at")
  ELSE "current_period_start"
END;--> statement-breakpoint
ALTER TABLE "subscriptions" ALTER COLUMN "billing_cycle_anchor" SET NOT NULL;
