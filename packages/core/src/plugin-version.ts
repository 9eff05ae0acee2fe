/**
 * The major version of the plugin API this `@toolhost/core` speaks. A host refuses a plugin made
 * with `definePlugin` of another major, naming both versions.
 */
export const PLUGIN_API_VERSION = 1;
