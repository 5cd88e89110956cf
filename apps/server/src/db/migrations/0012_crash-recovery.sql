CREATE TABLE "instances" (
	"id" uuid PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"gone_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "clips" ADD COLUMN "claimed_by" uuid;--> statement-breakpoint
ALTER TABLE "clips" ADD COLUMN "recoveries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "instances_heartbeat_idx" ON "instances" USING btree ("heartbeat_at");--> statement-breakpoint
CREATE INDEX "clips_recording_claim_idx" ON "clips" USING btree ("claimed_by") WHERE "clips"."status" = 'recording';