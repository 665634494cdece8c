import { useId, useState } from "react";
import { Notice } from "./notice";

/**
 * A form's one error message: `notice` shows it as an alert, and `describedBy` ties it to the
 * form's fields (aria-describedby) while it is shown.
 */
export function useFormError() {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  return {
    setError,
    describedBy: error ? id : undefined,
    notice: error && (
      <Notice tone="error" id={id}>
        {error}
      </Notice>
    ),
  };
}
