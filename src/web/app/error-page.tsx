import { paths } from "@shared/paths";
import { Component, type ReactNode } from "react";
import { useDocumentTitle } from "../lib/use-document-title";

/** Shown when a page fails to render: a way back instead of a blank screen. */
export function ErrorPage() {
  useDocumentTitle("Something went wrong");
  return (
    <main id="main" className="main">
      <div className="page page--narrow">
        <h1 className="page__title">Something went wrong</h1>
        <div className="card">
          <p>This page could not be shown. Please reload it, or go back to the start.</p>
          <a className="button button--primary" href={paths.home}>
            Go to the home page
          </a>
        </div>
      </div>
    </main>
  );
}

/** Catches a render error anywhere below (a page, or a page's code that failed to load) and shows ErrorPage. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.error(error);
  }

  override render() {
    return this.state.failed ? <ErrorPage /> : this.props.children;
  }
}
