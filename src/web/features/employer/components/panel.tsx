import { Notice } from "@web/components/ui/notice";
import { errorMessage } from "@web/lib/api";
import { useAuth } from "@web/lib/auth";
import type { ApiState } from "@web/lib/use-api";
import { useSubmit } from "@web/lib/use-submit";
import { type ChangeEvent, type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";

/**
 * The pieces every employer panel shares: its data once loaded (or why not), the notice its actions
 * leave, and "sign in again" when the server asks for a recent sign-in. A panel keeps only its own form
 * and table.
 */

/**
 * A panel's body once its data is loaded: before that "Loading…", after a failed load the server's
 * message (else `failed`) in red. A panel whose data may be null (nothing set up yet) gets null.
 */
export function Loaded<T>({
  state,
  failed,
  children,
}: {
  state: Pick<ApiState<T>, "data" | "error">;
  failed: string;
  children(data: T): ReactNode;
}) {
  if (state.error) return <Notice tone="error">{errorMessage(state.error, failed)}</Notice>;
  if (state.data === undefined) {
    return (
      <p className="muted" role="status">
        Loading…
      </p>
    );
  }
  return children(state.data);
}

export type PanelNotice = { tone: "success" | "error"; text: string };

/**
 * A panel's actions that are no form (remove, revoke, send a test): `act` runs one and leaves a notice,
 * the text the action answers on success, or the server's message (else `failed`) when it throws.
 */
export function usePanelActions(failed: string) {
  const [notice, setNotice] = useState<PanelNotice | null>(null);
  const act = useCallback(
    async (action: () => Promise<string | undefined>): Promise<void> => {
      try {
        const text = await action();
        setNotice(text ? { tone: "success", text } : null);
      } catch (error) {
        setNotice({ tone: "error", text: errorMessage(error, failed) });
      }
    },
    [failed],
  );
  /** a notice of the panel's own (a form's success), or none */
  const say = useCallback((text: string | null) => setNotice(text ? { tone: "success", text } : null), []);
  return { notice, act, say };
}

/** A panel's notice as a status line (`className` places it). */
export function PanelStatus({ notice, className }: { notice: PanelNotice | null; className?: string }) {
  if (!notice) return null;
  return (
    <p role="status" className={className}>
      {notice.text}
    </p>
  );
}

/** A checkbox and its label; with a hint, the hint under it (tied by aria-describedby) and both in a div. */
export function Checkbox({
  label,
  hint,
  checked,
  onChange,
  className,
}: {
  label: ReactNode;
  hint?: string;
  checked: boolean;
  onChange(checked: boolean): void;
  /** the div's, when there is a hint */
  className?: string;
}) {
  const hintId = useId();
  const box = (
    <label className="checkbox">
      <input
        type="checkbox"
        checked={checked}
        aria-describedby={hint ? hintId : undefined}
        onChange={(e) => onChange(e.target.checked)}
      />{" "}
      {label}
    </label>
  );
  if (!hint) return box;
  return (
    <div className={className}>
      {box}
      <p id={hintId} className="field__hint">
        {hint}
      </p>
    </div>
  );
}

/** A fieldset of checkboxes, one per option, choosing some of them (an API key's scopes, a webhook's events). */
export function CheckboxGroup<T extends string>({
  legend,
  className,
  options,
  chosen,
  onChange,
  label,
}: {
  legend: string;
  className?: string;
  options: readonly T[];
  chosen: readonly T[];
  onChange(chosen: T[]): void;
  label(option: T): ReactNode;
}) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <Checkbox
          key={option}
          label={label(option)}
          checked={chosen.includes(option)}
          onChange={(on) => onChange(on ? [...chosen, option] : chosen.filter((o) => o !== option))}
        />
      ))}
    </fieldset>
  );
}

/** "Sign in again" (signs out; the sign-in then is recent), for a refusal that asks for a recent sign-in. */
export function SignInAgain({ label }: { label: string }) {
  const { signOut, signingOut } = useAuth();
  return (
    <button
      type="button"
      className="button button--secondary button--small"
      onClick={() => void signOut()}
      disabled={signingOut}
    >
      {label}
    </button>
  );
}

/** The names of a form's text fields. */
type TextFieldName<F> = { [K in keyof F]: F[K] extends string ? K : never }[keyof F];

/**
 * A panel's form: its fields in one state (`fields`, `set(name)(value)`, and `field(name)`: a text
 * field's value, change and form-level error wiring, spread into a TextField), filled from the loaded data by
 * `fill` (each time the data changes, or `once`), the request state of useSubmit (`form`), and `save`,
 * which sends it and says `saved` on success. `act` and `notice` are the panel's other actions'
 * (usePanelActions, with the same `failed` text).
 */
export function usePanelForm<F extends object, D>(
  initial: F,
  {
    data,
    fill,
    once = false,
    failed,
  }: { data?: D | undefined; fill?(data: D): F | undefined; once?: boolean; failed: string },
) {
  const form = useSubmit();
  const [fields, setFields] = useState(initial);
  const actions = usePanelActions(failed);
  const filled = useRef(false);
  const fillRef = useRef(fill);
  fillRef.current = fill;
  useEffect(() => {
    if (data === undefined || !fillRef.current || (once && filled.current)) return;
    filled.current = true;
    const next = fillRef.current(data);
    if (next) setFields(next);
  }, [data, once]);

  const set = useCallback(
    <K extends keyof F>(name: K) =>
      (value: F[K]) =>
        setFields((now) => ({ ...now, [name]: value })),
    [],
  );
  async function save(send: () => Promise<unknown>, saved?: string): Promise<boolean> {
    actions.say(null);
    const ok = await form.run(send, { failed });
    if (ok && saved) actions.say(saved);
    return ok;
  }
  const field = <K extends TextFieldName<F>>(name: K) => ({
    value: fields[name] as string,
    onChange: (event: ChangeEvent<HTMLInputElement>) => set(name)(event.target.value as F[K]),
    describedBy: form.describedBy,
  });
  return { form, fields, setFields, set, field, save, ...actions };
}
