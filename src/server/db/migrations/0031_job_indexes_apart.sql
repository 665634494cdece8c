-- The calls job's indexes become partial on a conjunct no request states (an ended call always has its end_reason), so
-- that no request's plan reads every active call through them (features/calls/repository.ts, activeCallSql).
DROP INDEX "calls_due_idx";--> statement-breakpoint
DROP INDEX "calls_session_idx";--> statement-breakpoint
CREATE INDEX "calls_due_idx" ON "calls" USING btree ("ends_at") WHERE "calls"."ended_at" is null and "calls"."end_reason" is null;--> statement-breakpoint
CREATE INDEX "calls_session_idx" ON "calls" USING btree ("session_id") WHERE "calls"."ended_at" is null and "calls"."end_reason" is null;