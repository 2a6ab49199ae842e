// Placeholder from the cli branch so the package builds before this target has tests; delete on merge.
