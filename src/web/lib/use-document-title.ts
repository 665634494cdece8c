import { useEffect } from "react";

/** Sets the browser tab's title for the current page. */
export function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · CallProof` : "CallProof";
  }, [title]);
}
