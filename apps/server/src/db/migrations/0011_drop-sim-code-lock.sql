ALTER TABLE "sims" DROP COLUMN "failed_code_attempts";--> statement-breakpoint
ALTER TABLE "sims" DROP COLUMN "code_locked_until";