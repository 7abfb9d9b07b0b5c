/** Small stroke icons drawn inline (no icon font, no network). */
import type { JSX } from 'react';

const paths: Record<string, JSX.Element> = {
  play: <path d="M5 3.5v9l7.5-4.5z" fill="currentColor" stroke="none" />,
  pause: (
    <>
      <rect x="4" y="3.5" width="2.8" height="9" rx="0.6" fill="currentColor" stroke="none" />
      <rect x="9.2" y="3.5" width="2.8" height="9" rx="0.6" fill="currentColor" stroke="none" />
    </>
  ),
  stop: <rect x="4" y="4" width="8" height="8" rx="1" fill="currentColor" stroke="none" />,
  download: <path d="M8 2.5v8M4.5 7 8 10.5 11.5 7M3 13.5h10" />,
  plus: <path d="M8 3v10M3 8h10" />,
  trash: <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.7 8.5h5.6l.7-8.5" />,
  edit: <path d="M10.5 3 13 5.5 6 12.5H3.5V10z" />,
  chevronRight: <path d="m6 3.5 4.5 4.5L6 12.5" />,
  chevronDown: <path d="M3.5 6 8 10.5 12.5 6" />,
  close: <path d="m4 4 8 8M12 4l-8 8" />,
  search: (
    <>
      <circle cx="7" cy="7" r="4" />
      <path d="m10 10 3.5 3.5" />
    </>
  ),
  external: <path d="M9 3h4v4M13 3 7.5 8.5M11 9.5V13H3V5h3.5" />,
  alert: <path d="M8 2.5 14 13H2zM8 6.5v3M8 11.2v.3" />,
  sitemap: <path d="M6 2.5h4v3H6zM2.5 10.5h4v3h-4zM9.5 10.5h4v3h-4zM8 5.5V8M4.5 10.5V8h7v2.5" />,
  list: <path d="M5.5 4h8M5.5 8h8M5.5 12h8M2.5 4h.5M2.5 8h.5M2.5 12h.5" />,
  gauge: <path d="M2.5 11a5.5 5.5 0 1 1 11 0M8 11l2.5-3.5" />,
  filter: <path d="M2.5 3.5h11l-4.2 5v4l-2.6 1.2V8.5z" />,
  spinner: <path d="M8 2.5a5.5 5.5 0 1 0 5.5 5.5" />,
  flag: <path d="M3.5 14V2.5M3.5 3h8.5l-2 3 2 3H3.5" />,
  resume: <path d="M5 3.5v9l7.5-4.5z" fill="currentColor" stroke="none" />,
  columns: <path d="M2.5 3h11v10h-11zM6.2 3v10M9.8 3v10" />,
  compare: <path d="M5 2.5v11M11 2.5v11M2.5 5.5H5M11 10.5h2.5M2.5 10.5H5M11 5.5h2.5" />,
  recrawl: <path d="M13 8a5 5 0 1 1-1.5-3.6M13 2.5v2.8h-2.8" />,
  upload: <path d="M8 10.5v-8M4.5 6 8 2.5 11.5 6M3 13.5h10" />,
  clock: (
    <>
      <circle cx="8" cy="8" r="5.5" />
      <path d="M8 5v3.2l2 1.3" />
    </>
  ),
  file: <path d="M4 2.5h5l3 3v8H4zM9 2.5v3h3" />,
};

export type IconName = keyof typeof paths;

/** A 16×16 icon in the current text colour. */
export function Icon({ name, size = 16, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      className={className ? `icon ${className}` : 'icon'}
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {paths[name]}
    </svg>
  );
}
