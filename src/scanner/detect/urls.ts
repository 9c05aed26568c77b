/** URL and text helpers the detection steps share. */

export function hostOf(raw: string): string | null {
  try {
    return new URL(raw).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export function originOf(raw: string): string | null {
  try {
    return new URL(raw).origin;
  } catch {
    return null;
  }
}

export function shorten(raw: string, max = 300): string {
  return raw.length > max ? `${raw.slice(0, max - 1)}…` : raw;
}
