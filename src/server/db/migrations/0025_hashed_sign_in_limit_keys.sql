-- Sign-in rate-limit keys now hold a keyed hash of the e-mail (HMAC-SHA256 under APP_SECRET), never the
-- e-mail: the old counters (plain e-mails, at most an hour long) are deleted; the limits start again from
-- zero for those accounts. (The same release binds sealed secrets to their row: SQL has no APP_SECRET, so
-- the server's start re-seals the plain ones, lib/sealed-secrets.ts.)
DELETE FROM "rate_limits" WHERE starts_with("key", 'signin-fail:acct:') OR starts_with("key", 'signin-code-fail:acct:');
