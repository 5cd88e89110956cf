CREATE TABLE "camera_stills" (
	"sim_iccid" text PRIMARY KEY NOT NULL,
	"storage_key" text NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live_view_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sim_iccid" text NOT NULL,
	"customer_id" uuid NOT NULL,
	"status" text DEFAULT 'starting' NOT NULL,
	"claimed_by" uuid,
	"alive_at" timestamp with time zone,
	"generation" integer DEFAULT 0 NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	"pull_started_at" timestamp with time zone,
	"first_segment_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"bytes_pulled" bigint DEFAULT 0 NOT NULL,
	"playlist" text,
	"stored_keys" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"end_reason" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live_view_settings" (
	"sim_iccid" text PRIMARY KEY NOT NULL,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "live_view_viewers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"session_id" uuid NOT NULL,
	"customer_id" uuid NOT NULL,
	"sim_iccid" text NOT NULL,
	"actor" jsonb NOT NULL,
	"play_token" text NOT NULL,
	"joined_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"confirmed_at" timestamp with time zone NOT NULL,
	"left_at" timestamp with time zone,
	"bytes_at_join" bigint DEFAULT 0 NOT NULL,
	"bytes_at_leave" bigint
);
--> statement-breakpoint
ALTER TABLE "camera_stills" ADD CONSTRAINT "camera_stills_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "live_view_sessions" ADD CONSTRAINT "live_view_sessions_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "live_view_sessions" ADD CONSTRAINT "live_view_sessions_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "live_view_settings" ADD CONSTRAINT "live_view_settings_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "live_view_viewers" ADD CONSTRAINT "live_view_viewers_session_id_live_view_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."live_view_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "live_view_sessions_open_camera_idx" ON "live_view_sessions" USING btree ("sim_iccid") WHERE status in ('starting', 'live');--> statement-breakpoint
CREATE INDEX "live_view_sessions_sim_requested_idx" ON "live_view_sessions" USING btree ("sim_iccid","requested_at");--> statement-breakpoint
CREATE INDEX "live_view_sessions_cleanup_idx" ON "live_view_sessions" USING btree ("ended_at") WHERE status in ('ended', 'failed');--> statement-breakpoint
CREATE UNIQUE INDEX "live_view_viewers_token_idx" ON "live_view_viewers" USING btree ("play_token");--> statement-breakpoint
CREATE INDEX "live_view_viewers_session_idx" ON "live_view_viewers" USING btree ("session_id");