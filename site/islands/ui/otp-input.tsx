import { inputClass } from "../../lib/ui.ts";

/**
 * The 6-digit one-time-code field (export and send dialogs): digits only, at
 * most six, offered by the browser from an SMS or mail ("one-time-code").
 */
export function OtpInput({ id, value, onChange, describedBy }: { id: string; value: string; onChange: (code: string) => void; describedBy?: string }) {
  return (
    <input
      id={id}
      className={`${inputClass} font-mono tracking-[0.3em] placeholder:font-sans placeholder:tracking-normal sm:max-w-48`}
      value={value}
      onChange={(e) => onChange(e.target.value.replace(/\D/g, "").slice(0, 6))}
      maxLength={6}
      inputMode="numeric"
      autoComplete="one-time-code"
      placeholder="Enter 6-digit OTP"
      aria-describedby={describedBy}
    />
  );
}
