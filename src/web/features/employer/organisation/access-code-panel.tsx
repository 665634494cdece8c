import type { AccessCodeRecord } from "@shared/employer";
import { EMPLOYER_MESSAGES, isCodeActive } from "@shared/employer";
import { MESSAGES } from "@shared/messages";
import { CopyableValue } from "@web/components/ui/copyable-value";

const date = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium" });
const dateTime = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short" });

function formatDate(iso: string, withTime = false): string {
  const value = new Date(iso);
  if (Number.isNaN(value.getTime())) return iso;
  return (withTime ? dateTime : date).format(value);
}

/** The newest employee access code: code, used, available and expiry; or why there is none. */
export function AccessCodePanel({ code }: { code: AccessCodeRecord | null }) {
  if (!code) {
    return <p className="muted code-panel__none">{MESSAGES.noAccessCodeData}</p>;
  }
  if (code.code === null) {
    return (
      <p className="code-panel__none" role="alert">
        {EMPLOYER_MESSAGES.accessCodeUnreadable}
      </p>
    );
  }
  if (code.usedCount >= code.maxUsers || !isCodeActive(code)) {
    const reason =
      code.usedCount >= code.maxUsers
        ? `all ${code.maxUsers} places were used`
        : `it expired on ${formatDate(code.expiresAt, true)}`;
    return (
      <div>
        <p className="code-panel__none">{MESSAGES.noActiveCode}</p>
        <p className="muted">
          Your last code ({code.code}) can no longer be used: {reason}. Generate a new one to invite more employees.
        </p>
      </div>
    );
  }
  return (
    <div>
      <CopyableValue label="Access Code" value={code.code} />
      <dl className="code-panel__facts">
        <div>
          <dt>Used</dt>
          <dd>{code.usedCount}</dd>
        </div>
        <div>
          <dt>Available</dt>
          <dd>{Math.max(0, code.maxUsers - code.usedCount)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>
            <time dateTime={code.expiresAt} title={formatDate(code.expiresAt, true)}>
              {formatDate(code.expiresAt)}
            </time>
          </dd>
        </div>
      </dl>
      <p className="muted">
        Give this code to your employees; they sign up at the Sign Up page with an email address at your company's
        domain.
      </p>
    </div>
  );
}
