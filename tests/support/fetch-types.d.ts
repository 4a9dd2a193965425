/**
 * The DOM's `BodyInit`, which the generated TypeScript client (clients/typescript/src/generated) names: Node's
 * own types declare fetch, Request and Response globally but not this alias, and the root tsconfig has no DOM
 * lib (the server must not use browser APIs). The client's own build uses the DOM lib instead.
 */
type BodyInit = NonNullable<ConstructorParameters<typeof Response>[0]>;
