// Types of boundary.mjs (plain JavaScript: the module hooks' thread loads it before TypeScript).
export declare const USER_MARKER: string;
export declare const ROOT: string | null;
export declare const PUBLIC_ENTRIES: ReadonlySet<string>;
export declare function isOwn(file: string): boolean;
export declare function isOwnDependency(file: string): boolean;
export declare function boundaryViolation(specifier: string, parent: string, resolved: string): string | null;
export declare const REFUSED: string;
export declare const SPLIT_BUNDLE: unique symbol;
export declare function splitEntry(file: string, split: unknown): string | null;
