import type { ProfileValues } from './profile-fields.js';

export interface Profile {
  name: string;
  values: ProfileValues;
  isDefault: boolean;
  /** Config keys Runyard does not know (written by another tool or a later version), kept as they were. */
  extra: Map<string, string>;
}

/** Every profile in file order, with exactly one default while any exist. */
export class ProfileSet {
  readonly #profiles: Profile[];

  constructor(profiles: Profile[]) {
    this.#profiles = profiles;
    this.#settleDefault();
  }

  get all(): readonly Profile[] {
    return this.#profiles;
  }

  get(name: string): Profile | undefined {
    return this.#profiles.find((p) => p.name === name);
  }

  /** The profile marked default; when none is, the one named `default`, else the first. */
  get default(): Profile | undefined {
    return this.#profiles.find((p) => p.isDefault);
  }

  /** Creates the profile or updates the values given; the first profile becomes the default. */
  upsert(name: string, values: ProfileValues): Profile {
    let profile = this.get(name);
    if (!profile) {
      profile = { name, values: {}, isDefault: false, extra: new Map() };
      this.#profiles.push(profile);
    }
    for (const [k, v] of Object.entries(values) as [keyof ProfileValues, string | undefined][]) {
      if (v !== undefined && v !== '') profile.values[k] = v;
    }
    this.#settleDefault();
    return profile;
  }

  setDefault(name: string): void {
    for (const p of this.#profiles) p.isDefault = p.name === name;
    this.#settleDefault();
  }

  /** Removes the profile; if it was the default, the first remaining one becomes the default (its name is returned). */
  remove(name: string): { removed: boolean; newDefault?: string } {
    const i = this.#profiles.findIndex((p) => p.name === name);
    if (i < 0) return { removed: false };
    const [gone] = this.#profiles.splice(i, 1);
    if (!gone.isDefault) return { removed: true };
    this.#settleDefault();
    return { removed: true, newDefault: this.default?.name };
  }

  #settleDefault(): void {
    const marked = this.#profiles.find((p) => p.isDefault) ?? this.#profiles.find((p) => p.name === 'default') ?? this.#profiles[0];
    for (const p of this.#profiles) p.isDefault = p === marked;
  }
}
