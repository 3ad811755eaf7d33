
B	initial_hJâ²‘®f2HµU-‡7