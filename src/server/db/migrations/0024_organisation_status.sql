-- An organisation's own status (issue 32 H2): `active` or `deactivated`. Before it, SSO, SCIM and API
-- keys read "deactivated" as "has no active superuser", which an admin's deactivation left behind, but
-- which also holds for an organisation that never had one active, and which missed accounts created
-- under the domain (SCIM, JIT) that deactivate-by-domain did not match.
ALTER TABLE "organisations" ADD COLUMN "status" text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "deactivated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organisations" ADD CONSTRAINT "organisations_status_check" CHECK ("organisations"."status" in ('active', 'deactivated'));--> statement-breakpoint
-- Backfill. An organisation is marked deactivated only when the audit log shows an admin deactivated it
-- (a successful admin.deactivate-employer naming it, or admin.deactivate-by-domain naming it or its
-- exact domain) AND it has no active superuser now. "No active superuser" alone is not enough: an
-- organisation whose employer is still pending (never activated), or whose only employer was erased,
-- was never deactivated by anyone, and deactivation would be a new, unaudited decision. An admin's
-- deactivation alone is not enough either should a superuser be active again (no path does that today,
-- but then the organisation plainly works). Its time is the latest such event.
UPDATE "organisations" o SET "status" = 'deactivated', "deactivated_at" = d.at
FROM (
  SELECT o2.id, max(a.at) AS at
  FROM "organisations" o2
  JOIN "audit_log" a ON a.outcome = 'success'
    AND (
      (a.action = 'admin.deactivate-employer' AND a.organisation_id = o2.id)
      OR (a.action = 'admin.deactivate-by-domain' AND (a.organisation_id = o2.id OR a.target = o2.domain))
    )
  WHERE NOT EXISTS (
    SELECT 1 FROM "users" s
    WHERE s.organisation_id = o2.id AND s.role = 'superuser' AND s.status = 'active'
  )
  GROUP BY o2.id
) d
WHERE o.id = d.id;--> statement-breakpoint
-- The rest of such an organisation's accounts (the SCIM or JIT accounts under its domain that the old
-- deactivate-by-domain missed) get the deactivation cascade now, as deactivating it today would give
-- them: deactivated, signed out, SSO links gone, and the API keys they created revoked. (No mail and
-- no audit event: the admin's own event above is the record; the rows keep their deactivated_at.)
UPDATE "users" SET "status" = 'deactivated', "deactivated_at" = now()
WHERE "role" IN ('superuser', 'client') AND "status" <> 'deactivated'
  AND "organisation_id" IN (SELECT id FROM "organisations" WHERE "status" = 'deactivated');--> statement-breakpoint
DELETE FROM "sessions" WHERE "user_id" IN (
  SELECT u.id FROM "users" u JOIN "organisations" o ON o.id = u.organisation_id
  WHERE o.status = 'deactivated' AND u.role IN ('superuser', 'client')
);--> statement-breakpoint
DELETE FROM "sso_links" WHERE "organisation_id" IN (SELECT id FROM "organisations" WHERE "status" = 'deactivated');--> statement-breakpoint
UPDATE "api_keys" SET "revoked_at" = now()
WHERE "revoked_at" IS NULL
  AND "organisation_id" IN (SELECT id FROM "organisations" WHERE "status" = 'deactivated');
