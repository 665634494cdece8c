import type { AccountRecord } from "@shared/admin";
import { MESSAGES } from "@shared/messages";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { countCaption, DataTable } from "@web/components/ui/data-table";
import { Pager } from "@web/components/ui/pager";
import { SearchField } from "@web/components/ui/search-field";
import { EMPTY_PAGE, type PagedList } from "@web/lib/paged-list";
import { adminApi } from "../api";
import { RowActionButton, useRowAction } from "./row-action";
import { WebsiteProof } from "./website-proof";

type ActiveEmployersProps = {
  employers: PagedList<AccountRecord, string>;
  /** the dashboard around the list is loading, or could not be loaded */
  loading: boolean;
  failed: boolean;
  /** an employer was deactivated: reload the list */
  onDeactivated(): void;
};

/** Active employer accounts: searchable, ten a page, each with Deactivate and Erase ("Confirm?") buttons. */
export function ActiveEmployers({ employers, loading: dashboardLoading, failed, onDeactivated }: ActiveEmployersProps) {
  const page = employers.list ?? EMPTY_PAGE;
  const query = employers.query.filters;
  const loading = dashboardLoading || employers.loading;
  const action = useRowAction(MESSAGES.deactivateEmployerFailedPrefix);

  const erasure = useRowAction("The account could not be erased: ");
  function erase(account: AccountRecord) {
    return erasure.run(account.id, async () => {
      await adminApi.eraseAccount(account.id);
      onDeactivated();
    });
  }

  function deactivate(account: AccountRecord) {
    return action.run(account.id, async () => {
      await adminApi.deactivateEmployer(account.id);
      onDeactivated();
    });
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
      <SearchField label="Search active employers" hint="By name, email or website." onSearch={employers.search} />
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
              <RowActionButton
                label="Deactivate"
                subject={account.fullName}
                variant="secondary"
                busy={action.busyId === account.id}
                onClick={() => void deactivate(account)}
              />{" "}
              <ConfirmButton label="Erase" subject={account.fullName} onConfirm={() => erase(account)} />
            </td>
          </tr>
        )}
      />
      <Pager label="Active employers" page={page.page} pages={page.pages} onPage={employers.showPage} busy={loading} />
    </section>
  );
}
