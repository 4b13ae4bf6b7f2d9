/** One choice of a segmented group: the value it stands for and the button's words. */
export interface Segment<T extends string> {
  value: T;
  label: string;
}

/**
 * A choice between a few views of one card: buttons side by side in a labelled group, the chosen
 * one pressed (aria-pressed), as the Files card's "Which files" and the Log card's "Which log".
 */
export function Segmented<T extends string>({
  label,
  segments,
  value,
  onChange,
}: {
  label: string;
  segments: ReadonlyArray<Segment<T>>;
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <div className="segmented" role="group" aria-label={label}>
      {segments.map((s) => (
        <button key={s.value} type="button" aria-pressed={value === s.value} onClick={() => onChange(s.value)}>
          {s.label}
        </button>
      ))}
    </div>
  );
}
