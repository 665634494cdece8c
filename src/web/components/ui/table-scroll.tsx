import type { ReactNode } from "react";
import "./ui.css";

type TableScrollProps = {
  /** id of the table's caption, which names the scrolling region */
  labelledBy: string;
  children: ReactNode;
};

/** Lets a wide table scroll sideways on a narrow screen; the region takes focus so keyboards can scroll it. */
export function TableScroll({ labelledBy, children }: TableScrollProps) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to scroll it
    <section className="table-scroll" aria-labelledby={labelledBy} tabIndex={0}>
      {children}
    </section>
  );
}
