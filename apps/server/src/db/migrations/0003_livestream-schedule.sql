ALTER TABLE "livestreams" ADD COLUMN "configured_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "livestreams" ADD COLUMN "activated_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "clips_livestream_slot_idx" ON "clips" USING btree ("livestream_id","slot");