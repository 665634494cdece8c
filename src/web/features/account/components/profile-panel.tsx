import type { AccountAnswer } from "@shared/account";
import { accountApi } from "../api";
import { ROLE_LABELS } from "./format";

/** Who is signed in: name, e-mail, role and organisation, and the export of their data. */
export function ProfilePanel({ account }: { account: AccountAnswer }) {
  return (
    <section className="card account-section" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <dl className="account-facts">
        <div>
          <dt>Name</dt>
          <dd>{account.fullName}</dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd>{account.email}</dd>
        </div>
        <div>
          <dt>Role</dt>
          <dd>{ROLE_LABELS[account.role]}</dd>
        </div>
        <div>
          <dt>Organisation</dt>
          <dd>{account.organisation ?? "—"}</dd>
        </div>
      </dl>
      <p className="muted">
        Everything CallProof keeps about you (profile, sessions, passkeys, codes and your audit events) in one file.
      </p>
      <a className="button button--secondary" href={accountApi.exportHref()} download>
        Export my data
      </a>
    </section>
  );
}
