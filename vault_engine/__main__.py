from vault_engine.cli.main import main

raise SystemExit(main())
