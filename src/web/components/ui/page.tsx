import { useDocumentTitle } from "@web/lib/use-document-title";
import type { ReactNode } from "react";

type PageProps = {
  title: string;
  /** the tab title, when it differs from the heading */
  documentTitle?: string;
  intro?: ReactNode;
  width?: "narrow" | "wide";
  children?: ReactNode;
};

/** A page's frame: the tab title, one h1 and a centred column. */
export function Page({ title, documentTitle, intro, width = "wide", children }: PageProps) {
  useDocumentTitle(documentTitle ?? title);
  return (
    <div className={`page page--${width}`}>
      <h1 className="page__title">{title}</h1>
      {intro && <div className="page__intro">{intro}</div>}
      {children}
    </div>
  );
}
