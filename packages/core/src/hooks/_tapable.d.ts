// tapable's base class, which its index does not export: the kernel's own hooks are built on it
// (taps, stages, `before`, register interceptors) and run their taps themselves.
declare module "tapable/lib/Hook.js" {
  const Hook: new (args?: readonly string[], name?: string) => object;
  export default Hook;
}
