import "./ui.css";

type PagerProps = {
  /** what is being paged, for the navigation landmark's name: "Active employers" */
  label: string;
  page: number;
  pages: number;
  onPage(page: number): void;
  busy?: boolean;
};

/** Prev / Next buttons around "Page x of y". */
export function Pager({ label, page, pages, onPage, busy = false }: PagerProps) {
  const last = Math.max(1, pages);
  const current = Math.min(Math.max(1, page), last);
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button
        type="button"
        className="button button--secondary pager__button"
        disabled={current <= 1 || busy}
        onClick={() => onPage(current - 1)}
      >
        Prev
      </button>
      <span className="pager__status" aria-live="polite">
        Page {current} of {last}
      </span>
      <button
        type="button"
        className="button button--secondary pager__button"
        disabled={current >= last || busy}
        onClick={() => onPage(current + 1)}
      >
        Next
      </button>
    </nav>
  );
}
