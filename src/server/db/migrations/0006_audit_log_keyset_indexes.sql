-- The audit viewer orders by (at, id) and filters by organisation, actor e-mail or action: each index ends
-- with (at, id) so a page, at any depth, is read from the index alone (the log is append-only, so its
-- pages stay all-visible). They replace the (x, at) indexes they extend.
CREATE INDEX "audit_log_at_id_idx" ON "audit_log" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "audit_log_org_at_id_idx" ON "audit_log" USING btree ("organisation_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_actor_email_at_id_idx" ON "audit_log" USING btree ("actor_email","at","id");--> statement-breakpoint
CREATE INDEX "audit_log_action_at_id_idx" ON "audit_log" USING btree ("action","at","id");--> statement-breakpoint
DROP INDEX "audit_log_at_idx";--> statement-breakpoint
DROP INDEX "audit_log_org_at_idx";--> statement-breakpoint
DROP INDEX "audit_log_actor_email_at_idx";--> statement-breakpoint
DROP INDEX "audit_log_action_at_idx";
