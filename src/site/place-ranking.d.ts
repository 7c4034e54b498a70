import type MiniSearch from "minisearch";

export interface FoundPlace { slug: string; name: string; state: string; county?: string; population: number }
export function fold(text: string): string;
export function findPlaces(index: MiniSearch, query: string, limit?: number): FoundPlace[];
