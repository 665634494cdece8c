-- The tamper-evident audit log: a feed position given to each event once the transaction that wrote it
-- has ended, salted commitments of its personal values, and a keyed hash chain with signed checkpoints.
ALTER TABLE "audit_log" ADD COLUMN "position" bigint;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "salts" jsonb;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "commits" jsonb;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "mac" text;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_position_key" ON "audit_log" USING btree ("position");--> statement-breakpoint
CREATE INDEX "audit_log_unpositioned_idx" ON "audit_log" USING btree ("id") WHERE "position" IS NULL;--> statement-breakpoint
CREATE SEQUENCE "audit_feed_position";--> statement-breakpoint
CREATE TABLE "audit_checkpoints" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"kind" text NOT NULL,
	"position" bigint NOT NULL,
	"mac" text NOT NULL,
	"signature" text NOT NULL,
	CONSTRAINT "audit_checkpoints_kind_check" CHECK ("kind" IN ('head', 'cut'))
);
