ALTER TABLE "call_reports" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "call_reports" ADD COLUMN "unverified_origin" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "paused_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_org_due_idx" ON "webhook_deliveries" USING btree ("organisation_id","next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_leased_idx" ON "webhook_deliveries" USING btree ("organisation_id") WHERE "webhook_deliveries"."status" = 'pending' and "webhook_deliveries"."locked_until" is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_test_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "webhook_deliveries"."status" = 'pending' and "webhook_deliveries"."event_type" = 'webhook.test';