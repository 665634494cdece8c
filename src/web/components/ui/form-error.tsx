import type { ReactNode } from "react";
import { Notice } from "./notice";

/** A form's one error message as an alert, under the id its fields point to (see useSubmit). */
export function FormError({
  form,
  children,
}: {
  form: { error: string | null; errorId: string };
  children?: ReactNode;
}) {
  if (!form.error) return null;
  return (
    <Notice tone="error" id={form.errorId}>
      {form.error}
      {children}
    </Notice>
  );
}
