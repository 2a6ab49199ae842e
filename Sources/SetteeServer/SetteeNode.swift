enum SetteeServerPlaceholder {}
