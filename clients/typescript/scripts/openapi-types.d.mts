export function generate(): Promise<string>;
export function committed(): Promise<string>;
