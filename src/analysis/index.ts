// The analysis module's public surface: run evaluation (pure), providers, condition expressions.
export * from './evaluate/index.ts';
