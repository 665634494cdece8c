import { paths } from "@shared/paths";
import { useRouteError } from "react-router";
import { useDocumentTitle } from "../lib/use-document-title";

/** Shown when a page fails to render: a way back instead of a blank screen. */
export function ErrorPage() {
  const error = useRouteError();
  console.error(error);
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
