import { type ReactNode, useId } from "react";
import { TableScroll } from "./table-scroll";

type DataTableProps<T> = {
  caption: ReactNode;
  /** the header row's cells */
  head: ReactNode;
  /** how many columns there are, for the "empty" cell's span */
  columns: number;
  items: readonly T[];
  /** one row (with its key) for an item */
  row(item: T): ReactNode;
  /** the text of the one cell shown when there are no items */
  empty: ReactNode;
  /** a request for the rows is running */
  busy?: boolean;
  /** a modifier class beside "data-table" */
  variant?: string;
};

/** A captioned table that scrolls sideways on a narrow screen, with one spanning cell when it has no rows. */
export function DataTable<T>({ caption, head, columns, items, row, empty, busy, variant }: DataTableProps<T>) {
  const captionId = useId();
  return (
    <TableScroll labelledBy={captionId}>
      <table className={variant ? `data-table ${variant}` : "data-table"} aria-busy={busy || undefined}>
        <caption id={captionId}>{caption}</caption>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>
          {items.length === 0 ? (
            <tr>
              <td colSpan={columns} className="data-table__empty">
                {empty}
              </td>
            </tr>
          ) : (
            items.map((item) => row(item))
          )}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** A list's caption: "Label", or "Label (12)" / "Label (3 matching "q")" once it has rows. */
export function countCaption(label: string, total: number, query = ""): string {
  return `${label}${total > 0 ? ` (${total}${query ? ` matching "${query}"` : ""})` : ""}`;
}
