"""Assets of the route report: drawings (``draw``), labels, the HTML template and its stylesheet."""
