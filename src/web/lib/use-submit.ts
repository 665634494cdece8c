import { useId, useRef, useState } from "react";
import type { z } from "zod";
import { ApiError, errorMessage } from "./api";

type RunOptions = {
  /** the message shown when the request fails: a text the server's own message replaces, or a function of the error */
  failed: string | ((error: unknown) => string);
  /** the page moves on after success: the form stays busy, so it cannot be sent twice on the way */
  stayBusy?: boolean;
};

/**
 * A form's request state: `busy` while a request runs, and the one error message shown for the form
 * (with `errorCode`, the server's code for it). `errorId` is the id the message is shown under, and
 * `describedBy` ties it to the fields (aria-describedby) while one is shown.
 */
export function useSubmit() {
  const errorId = useId();
  const [busy, setBusy] = useState(false);
  const running = useRef(false);
  const [failure, setFailure] = useState<{ message: string; code: string | undefined } | null>(null);

  /** Shows a message (a check that failed before any request), or clears it with null. */
  function setError(message: string | null) {
    setFailure(message === null ? null : { message, code: undefined });
  }

  /** Checks what was typed before any request: the parsed value, or undefined with the schema's first message shown. */
  function check<S extends z.ZodType>(schema: S, value: unknown, fallback: string): z.output<S> | undefined {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    setError(parsed.error.issues[0]?.message ?? fallback);
    return undefined;
  }

  /**
   * Runs the form's request unless one is running: clears the error, is busy meanwhile, and shows the
   * server's message (or `failed`) when it throws. Resolves to whether it succeeded.
   */
  async function run(send: () => Promise<unknown>, { failed, stayBusy = false }: RunOptions): Promise<boolean> {
    if (running.current) return false;
    running.current = true;
    setBusy(true);
    setFailure(null);
    let ok = false;
    try {
      await send();
      ok = true;
    } catch (error) {
      setFailure({
        message: typeof failed === "string" ? errorMessage(error, failed) : failed(error),
        code: error instanceof ApiError ? error.code : undefined,
      });
    } finally {
      if (!ok || !stayBusy) {
        running.current = false;
        setBusy(false);
      }
    }
    return ok;
  }

  return {
    busy,
    error: failure?.message ?? null,
    errorCode: failure?.code,
    errorId,
    describedBy: failure ? errorId : undefined,
    setError,
    check,
    run,
  };
}

export type Submit = ReturnType<typeof useSubmit>;
