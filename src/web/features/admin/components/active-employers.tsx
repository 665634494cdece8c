import type { AccountRecord, Page } from "@shared/admin";
import { MESSAGES } from "@shared/messages";
import { countCaption, DataTable } from "@web/components/ui/data-table";
import { Pager } from "@web/components/ui/pager";
import { SearchField } from "@web/components/ui/search-field";
import { useState } from "react";
import { adminApi, failureReason } from "../api";
import { WebsiteProof } from "./website-proof";

type ActiveEmployersProps = {
  page: Page<AccountRecord>;
  query: string;
  loading: boolean;
  failed: boolean;
  onSearch(q: string): void;
  onPage(page: number): void;
  /** an employer was deactivated: reload the list */
  onDeactivated(): void;
};

/** Active employer accounts: searchable, ten a page, each with a Deactivate button. */
export function ActiveEmployers({
  page,
  query,
  loading,
  failed,
  onSearch,
  onPage,
  onDeactivated,
}: ActiveEmployersProps) {
  const [busyId, setBusyId] = useState<number | null>(null);

  async function deactivate(account: AccountRecord) {
    if (busyId !== null) return;
    setBusyId(account.id);
    try {
      await adminApi.deactivateEmployer(account.id);
      onDeactivated();
    } catch (error) {
      alert(MESSAGES.deactivateEmployerFailedPrefix + failureReason(error));
    } finally {
      setBusyId(null);
    }
  }

  const empty = loading
    ? "Loading…"
    : failed
      ? "Could not load the active employers."
      : query
        ? `No active employers match "${query}".`
        : "No active employers.";

  return (
    <section className="admin-section" aria-labelledby="active-title">
      <h2 id="active-title">Active employers</h2>
      <SearchField label="Search active employers" hint="By name, email or website." onSearch={onSearch} />
      <DataTable
        caption={countCaption("Active employers", page.total, query)}
        busy={loading}
        head={
          <>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Company</th>
            <th scope="col">Website</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </>
        }
        columns={5}
        items={page.items}
        empty={empty}
        row={(account) => (
          <tr key={account.id}>
            <th scope="row">{account.fullName}</th>
            <td>{account.email}</td>
            <td>{account.companyName}</td>
            <td>
              <WebsiteProof account={account} />
            </td>
            <td>
              <button
                type="button"
                className="button button--secondary"
                aria-disabled={busyId === account.id || undefined}
                data-busy={busyId === account.id || undefined}
                onClick={() => void deactivate(account)}
              >
                Deactivate<span className="visually-hidden"> {account.fullName}</span>
              </button>
            </td>
          </tr>
        )}
      />
      <Pager label="Active employers" page={page.page} pages={page.pages} onPage={onPage} busy={loading} />
    </section>
  );
}
