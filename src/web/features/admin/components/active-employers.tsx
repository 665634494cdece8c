import { useId, useState } from "react";
import type { AccountRecord, Page } from "../../../../shared/admin";
import { MESSAGES } from "../../../../shared/messages";
import { Pager } from "../../../components/ui/pager";
import { SearchField } from "../../../components/ui/search-field";
import { TableScroll } from "../../../components/ui/table-scroll";
import { adminApi, failureReason } from "../api";
import { WebsiteLink } from "./website-link";

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
  const captionId = useId();
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
      <TableScroll labelledBy={captionId}>
        <table className="data-table" aria-busy={loading || undefined}>
          <caption id={captionId}>
            Active employers{page.total > 0 ? ` (${page.total}${query ? ` matching "${query}"` : ""})` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Company</th>
              <th scope="col">Website</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.items.length === 0 ? (
              <tr>
                <td colSpan={5} className="data-table__empty">
                  {empty}
                </td>
              </tr>
            ) : (
              page.items.map((account) => (
                <tr key={account.id}>
                  <th scope="row">{account.fullName}</th>
                  <td>{account.email}</td>
                  <td>{account.companyName}</td>
                  <td>
                    <WebsiteLink url={account.website} />
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
              ))
            )}
          </tbody>
        </table>
      </TableScroll>
      <Pager label="Active employers" page={page.page} pages={page.pages} onPage={onPage} busy={loading} />
    </section>
  );
}
