from sourcecheck_eval.bench import main

main()
