-- Sealed secrets bound to their organisation and purpose (docs/security.md, "Sealed secrets"): every value
-- sealed before this migration (plain AES-GCM, no context) is marked legacy here; SQL has no APP_SECRET, so
-- the server's start re-seals each marked value under its own row's context (lib/sealed-secrets.ts) before
-- it listens. A marked value is never opened for reading.
UPDATE "webhook_endpoints" SET "secret_sealed" = 'legacy:' || "secret_sealed" WHERE NOT starts_with("secret_sealed", 'legacy:');--> statement-breakpoint
UPDATE "employee_access_codes" SET "code_sealed" = 'legacy:' || "code_sealed" WHERE NOT starts_with("code_sealed", 'legacy:');--> statement-breakpoint
-- Sign-in rate-limit keys now hold a keyed hash of the e-mail, never the e-mail: the old counters (plain
-- e-mails, at most an hour long) are deleted; the limits start again from zero for those accounts.
DELETE FROM "rate_limits" WHERE starts_with("key", 'signin-fail:acct:') OR starts_with("key", 'signin-code-fail:acct:');
