/** The current UTC day (`2026-11-28`), recomputed only when it ends: metering asks for it on every request. */
export class UtcDay {
  private name = '';
  private endsAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  get today(): string {
    const now = this.now();
    if (now >= this.endsAt) {
      this.name = new Date(now).toISOString().slice(0, 10);
      this.endsAt = Date.parse(`${this.name}T00:00:00Z`) + 86_400_000;
    }
    return this.name;
  }
}
