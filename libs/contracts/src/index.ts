export * from "./topics";
