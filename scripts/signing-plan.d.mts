export interface SigningPlan {
  sign: boolean;
  notarize: boolean;
  /** One sentence per thing not signed or notarized, with what to set. */
  notes: string[];
  /** electron-builder arguments that skip what has no identity. */
  overrides: string[];
}

export function signingPlan(env: Record<string, string | undefined>, platform: string): SigningPlan;
