/**
 * The blue-green strategy's surface: the strategy itself, for the dispatch table. Everything
 * else in blueGreen/ is its own business.
 */
export { blueGreenStrategy } from './plan.ts';
