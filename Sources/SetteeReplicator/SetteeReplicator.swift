public enum SetteeReplicatorModule {}
