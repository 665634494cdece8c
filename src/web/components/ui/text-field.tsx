import { type InputHTMLAttributes, type Ref, useId } from "react";

export type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "children"> & {
  label: string;
  ref?: Ref<HTMLInputElement>;
  /** help shown under the field, always */
  hint?: string;
  /** this field's own error, shown under it */
  error?: string;
  /** ids of other elements describing the field, such as a form-level error */
  describedBy?: string | undefined;
};

/** A labelled input with its hint and error wired to it through aria-describedby. */
export function TextField({ label, hint, error, describedBy, className, ref, ...input }: TextFieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const described = [hintId, errorId, describedBy].filter(Boolean).join(" ") || undefined;
  return (
    <div className={["field", className].filter(Boolean).join(" ")}>
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      {hint && (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      )}
      <input
        ref={ref}
        id={id}
        className="field__input"
        aria-invalid={error || describedBy ? true : undefined}
        aria-describedby={described}
        {...input}
      />
      {error && (
        <p id={errorId} className="field__error">
          {error}
        </p>
      )}
    </div>
  );
}
