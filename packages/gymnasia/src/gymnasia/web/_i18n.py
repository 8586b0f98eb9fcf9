"""The web app's own words (es first, pt, en): the ``web`` section of ``gymnasia.i18n``. Tool and
reply text comes from the Coach."""

from __future__ import annotations

from typing import Final

from surefoot import Lang
from surefoot.outcome import LANGS

from ..i18n import entry, register
from ..store import MEASUREMENT_FIELDS

_UI: Final[dict[str, dict[Lang, str]]] = {
    "nav_chat": {"es": "Chat", "pt": "Chat", "en": "Chat"},
    "nav_measurements": {"es": "Medidas", "pt": "Medidas", "en": "Measurements"},
    "nav_writes": {"es": "Escrituras", "pt": "Escritas", "en": "Writes"},
    "writes_title": {
        "es": "Escrituras del Coach",
        "pt": "Escritas do Coach",
        "en": "The Coach's writes",
    },
    "writes_lead": {
        "es": "Cada cambio que el Coach intentó en tus datos y en qué quedó. Si un turno no "
        "pudo confirmar una acción, aquí ves si se hizo.",
        "pt": "Cada alteração que o Coach tentou nos seus dados e como ficou. Se um turno não "
        "conseguiu confirmar uma ação, aqui você vê se foi feita.",
        "en": "Every change the Coach tried to make to your data and how it ended. If a turn "
        "could not confirm an action, this is where you see whether it was done.",
    },
    "no_writes": {
        "es": "El Coach aún no ha cambiado nada.",
        "pt": "O Coach ainda não alterou nada.",
        "en": "The Coach has not changed anything yet.",
    },
    "write_when": {"es": "Cuándo", "pt": "Quando", "en": "When"},
    "write_tool": {"es": "Acción", "pt": "Ação", "en": "Action"},
    "write_state": {"es": "Estado", "pt": "Estado", "en": "State"},
    "language": {"es": "Idioma", "pt": "Idioma", "en": "Language"},
    "offline_label": {
        "es": "Modelo offline · por reglas, sin IA",
        "pt": "Modelo offline · por regras, sem IA",
        "en": "Offline model · rule-based, no AI",
    },
    "model_label": {"es": "Modelo", "pt": "Modelo", "en": "Model"},
    "conversations": {"es": "Conversaciones", "pt": "Conversas", "en": "Conversations"},
    "new_conversation": {
        "es": "Nueva conversación",
        "pt": "Nova conversa",
        "en": "New conversation",
    },
    "no_conversations": {
        "es": "Aún no hay conversaciones.",
        "pt": "Ainda não há conversas.",
        "en": "No conversations yet.",
    },
    "messages_one": {"es": "1 mensaje", "pt": "1 mensagem", "en": "1 message"},
    "messages_many": {"es": "{n} mensajes", "pt": "{n} mensagens", "en": "{n} messages"},
    "placeholder": {
        "es": "Escribe a tu coach…",
        "pt": "Escreva ao seu coach…",
        "en": "Write to your coach…",
    },
    "send": {"es": "Enviar", "pt": "Enviar", "en": "Send"},
    "examples": {"es": "Prueba:", "pt": "Experimente:", "en": "Try:"},
    "welcome": {
        "es": "Pregunta por tus medidas, guarda un peso o gestiona tus notas.",
        "pt": "Pergunte pelas suas medidas, salve um peso ou gerencie suas notas.",
        "en": "Ask about your measurements, save a weight or manage your notes.",
    },
    "you": {"es": "Tú", "pt": "Você", "en": "You"},
    "coach": {"es": "Coach", "pt": "Coach", "en": "Coach"},
    "harness": {"es": "Gymnasia", "pt": "Gymnasia", "en": "Gymnasia"},
    "thinking": {"es": "Pensando…", "pt": "Pensando…", "en": "Thinking…"},
    "trace": {
        "es": "Traza de herramientas",
        "pt": "Rastreamento de ferramentas",
        "en": "Tool trace",
    },
    "trace_empty": {
        "es": "Aquí aparecerá cada llamada a una herramienta, con sus argumentos y su resultado.",
        "pt": "Aqui aparecerá cada chamada a uma ferramenta, com os argumentos e o resultado.",
        "en": "Each tool call will appear here, with its arguments and its outcome.",
    },
    "turn": {"es": "Turno", "pt": "Turno", "en": "Turn"},
    "arguments": {"es": "Argumentos", "pt": "Argumentos", "en": "Arguments"},
    "raw_arguments": {
        "es": "Argumentos sin interpretar",
        "pt": "Argumentos não interpretados",
        "en": "Unparsed arguments",
    },
    "outcome": {"es": "Resultado", "pt": "Resultado", "en": "Outcome"},
    "recovery": {"es": "recuperación", "pt": "recuperação", "en": "recovery"},
    "not_executed": {"es": "no ejecutada", "pt": "não executada", "en": "not executed"},
    "requests_one": {
        "es": "1 petición al modelo",
        "pt": "1 pedido ao modelo",
        "en": "1 model request",
    },
    "requests_many": {
        "es": "{n} peticiones al modelo",
        "pt": "{n} pedidos ao modelo",
        "en": "{n} model requests",
    },
    "stopped_title": {
        "es": "Turno detenido por Gymnasia",
        "pt": "Turno interrompido pelo Gymnasia",
        "en": "Turn stopped by Gymnasia",
    },
    "confirm_title": {
        "es": "Confirmación necesaria",
        "pt": "Confirmação necessária",
        "en": "Confirmation needed",
    },
    "confirm_body": {
        "es": "El coach quiere ejecutar esta acción. No se hará nada sin tu permiso.",
        "pt": "O coach quer executar esta ação. Nada será feito sem a sua autorização.",
        "en": "The coach wants to run this action. Nothing happens without your permission.",
    },
    "approve": {"es": "Aprobar", "pt": "Aprovar", "en": "Approve"},
    "deny": {"es": "Denegar", "pt": "Negar", "en": "Deny"},
    "approved": {"es": "Aprobada", "pt": "Aprovada", "en": "Approved"},
    "denied": {"es": "Denegada", "pt": "Negada", "en": "Denied"},
    "already_decided": {
        "es": "Esta confirmación ya estaba decidida; no se ha repetido nada.",
        "pt": "Esta confirmação já estava decidida; nada foi repetido.",
        "en": "This confirmation was already decided; nothing was repeated.",
    },
    "pending_blocks": {
        "es": "Hay una confirmación pendiente en esta conversación: apruébala o deniégala antes.",
        "pt": "Há uma confirmação pendente nesta conversa: aprove-a ou negue-a primeiro.",
        "en": "A confirmation is pending in this conversation: approve or deny it first.",
    },
    "invalid_json": {
        "es": "La petición no es JSON válido (UTF-8, sin caracteres sueltos de una pareja "
        "sustituta); no se ha hecho nada.",
        "pt": "O pedido não é JSON válido (UTF-8, sem caracteres soltos de um par "
        "substituto); nada foi feito.",
        "en": "The request is not valid JSON (UTF-8, without lone surrogate characters); "
        "nothing was done.",
    },
    "invalid_request": {
        "es": "La petición tiene campos que faltan, sobran o no son válidos: {fields}. No se "
        "ha hecho nada.",
        "pt": "O pedido tem campos faltando, sobrando ou inválidos: {fields}. Nada foi feito.",
        "en": "The request has missing, unexpected or invalid fields: {fields}. Nothing was done.",
    },
    "too_large": {
        "es": "La petición es demasiado grande (más de {limit} KiB); no se ha leído ni hecho nada.",
        "pt": "O pedido é grande demais (mais de {limit} KiB); nada foi lido nem feito.",
        "en": "The request is too large (over {limit} KiB); nothing was read or done.",
    },
    "server_error": {
        "es": "Algo ha fallado en el servidor. La conversación está guardada; "
        "`gymnasia diagnostics` muestra los detalles.",
        "pt": "Algo falhou no servidor. A conversa está salva; "
        "`gymnasia diagnostics` mostra os detalhes.",
        "en": "Something failed on the server. The conversation is saved; "
        "`gymnasia diagnostics` shows the details.",
    },
    "busy": {
        "es": "Otro proceso está atendiendo un turno en esta conversación. No se ha hecho nada; "
        "vuelve a intentarlo en un momento.",
        "pt": "Outro processo está tratando de um turno nesta conversa. Nada foi feito; tente "
        "de novo daqui a pouco.",
        "en": "Another process is running a turn in this conversation. Nothing was done; try "
        "again in a moment.",
    },
    "network_error": {
        "es": "No se ha podido contactar con el servidor.",
        "pt": "Não foi possível contatar o servidor.",
        "en": "Could not reach the server.",
    },
    "measurements_title": {
        "es": "Medidas corporales",
        "pt": "Medidas corporais",
        "en": "Body measurements",
    },
    "weight_chart": {
        "es": "Peso a lo largo del tiempo",
        "pt": "Peso ao longo do tempo",
        "en": "Weight over time",
    },
    "no_measurements": {
        "es": "Aún no hay medidas guardadas. Pídele al coach que guarde una en el chat.",
        "pt": "Ainda não há medidas salvas. Peça ao coach que salve uma no chat.",
        "en": "No measurements saved yet. Ask the coach to save one in the chat.",
    },
    "no_weights": {
        "es": "No hay pesos guardados que dibujar.",
        "pt": "Não há pesos salvos para desenhar.",
        "en": "There are no saved weights to draw.",
    },
    "records": {"es": "Registros", "pt": "Registros", "en": "Records"},
    "latest_weight": {"es": "Último peso", "pt": "Último peso", "en": "Latest weight"},
    "change": {"es": "Cambio", "pt": "Variação", "en": "Change"},
    "since": {"es": "desde el {date}", "pt": "desde {date}", "en": "since {date}"},
    "date": {"es": "Fecha", "pt": "Data", "en": "Date"},
    "weight_kg": {"es": "Peso (kg)", "pt": "Peso (kg)", "en": "Weight (kg)"},
    "body_fat_pct": {"es": "Grasa (%)", "pt": "Gordura (%)", "en": "Body fat (%)"},
    "neck_cm": {"es": "Cuello (cm)", "pt": "Pescoço (cm)", "en": "Neck (cm)"},
    "chest_cm": {"es": "Pecho (cm)", "pt": "Peito (cm)", "en": "Chest (cm)"},
    "waist_cm": {"es": "Cintura (cm)", "pt": "Cintura (cm)", "en": "Waist (cm)"},
    "hips_cm": {"es": "Cadera (cm)", "pt": "Quadril (cm)", "en": "Hips (cm)"},
    "biceps_cm": {"es": "Bíceps (cm)", "pt": "Bíceps (cm)", "en": "Biceps (cm)"},
    "quadriceps_cm": {"es": "Cuádriceps (cm)", "pt": "Quadríceps (cm)", "en": "Quadriceps (cm)"},
    "calf_cm": {"es": "Gemelo (cm)", "pt": "Panturrilha (cm)", "en": "Calf (cm)"},
    "height_cm": {"es": "Altura (cm)", "pt": "Altura (cm)", "en": "Height (cm)"},
    "actions": {"es": "Acciones", "pt": "Ações", "en": "Actions"},
    "edit": {"es": "Editar", "pt": "Editar", "en": "Edit"},
    "delete": {"es": "Borrar", "pt": "Excluir", "en": "Delete"},
    "save": {"es": "Guardar", "pt": "Salvar", "en": "Save"},
    "cancel": {"es": "Cancelar", "pt": "Cancelar", "en": "Cancel"},
    "edit_title": {
        "es": "Editar la medida del {date}",
        "pt": "Editar a medida de {date}",
        "en": "Edit the measurement of {date}",
    },
    "edit_hint": {
        "es": "Deja un campo vacío para quitar su valor. Se aceptan 80,5 y 80.5.",
        "pt": "Deixe um campo vazio para remover o seu valor. Aceita-se 80,5 e 80.5.",
        "en": "Leave a field empty to remove its value. Both 80.5 and 80,5 are accepted.",
    },
    "delete_title": {
        "es": "¿Borrar la medida del {date}?",
        "pt": "Excluir a medida de {date}?",
        "en": "Delete the measurement of {date}?",
    },
    "delete_body": {
        "es": "Se borrarán todos los valores de ese día. No se puede deshacer.",
        "pt": "Todos os valores desse dia serão excluídos. Não é possível desfazer.",
        "en": "Every value of that day will be deleted. This cannot be undone.",
    },
    "field_invalid": {
        "es": "{field}: usa un número entre {low} y {high}.",
        "pt": "{field}: use um número entre {low} e {high}.",
        "en": "{field}: use a number from {low} to {high}.",
    },
    "field_invalid_any": {
        "es": "{field}: escribe un número, como 80,5.",
        "pt": "{field}: escreva um número, como 80,5.",
        "en": "{field}: write a number, such as 80.5.",
    },
    "field_unknown": {
        "es": "«{field}» no es una medida que se pueda guardar.",
        "pt": "«{field}» não é uma medida que se possa salvar.",
        "en": "'{field}' is not a measurement that can be saved.",
    },
    "bad_date": {
        "es": "Fecha no válida: usa AAAA-MM-DD.",
        "pt": "Data inválida: use AAAA-MM-DD.",
        "en": "Invalid date: use YYYY-MM-DD.",
    },
    "measurement_gone": {
        "es": "Esa medida ya no existe (quizá se borró en otra pestaña). Recarga la página.",
        "pt": "Essa medida já não existe (talvez tenha sido excluída noutro separador). Recarregue "
        "a página.",
        "en": "That measurement no longer exists (perhaps it was deleted in another tab). Reload "
        "the page.",
    },
    "measurement_empty": {
        "es": "La medida se quedaría sin ningún valor; para quitarla, bórrala.",
        "pt": "A medida ficaria sem nenhum valor; para a remover, apague-a.",
        "en": "The measurement would be left with no value; to remove it, delete it.",
    },
    "measurement_date_taken": {
        "es": "El {date} ya tiene su propia medida; no se ha movido nada.",
        "pt": "{date} já tem a sua própria medida; nada foi movido.",
        "en": "{date} already has a measurement of its own; nothing was moved.",
    },
    "token_title": {
        "es": "Se necesita el token de acceso",
        "pt": "É necessário o token de acesso",
        "en": "Access token required",
    },
    "token_body": {
        "es": "Este servidor Gymnasia está protegido. Introduce el token con el que se inició.",
        "pt": "Este servidor Gymnasia está protegido. Digite o token com que foi iniciado.",
        "en": "This Gymnasia server is protected. Enter the token it was started with.",
    },
    "token_submit": {"es": "Entrar", "pt": "Entrar", "en": "Enter"},
}

_MORE: Final[dict[str, dict[Lang, str]]] = {
    # -- navigation and the new pages --------------------------------------------------------
    "nav_meals": {"es": "Comidas", "pt": "Refeições", "en": "Meals"},
    "nav_routines": {"es": "Rutinas", "pt": "Rotinas", "en": "Routines"},
    "nav_notes": {"es": "Notas", "pt": "Notas", "en": "Notes"},
    "nav_goals": {"es": "Objetivos", "pt": "Metas", "en": "Goals"},
    "nav_pages": {"es": "Páginas", "pt": "Páginas", "en": "Pages"},
    "meals_title": {"es": "Diario de comidas", "pt": "Diário de refeições", "en": "Meal diary"},
    "routines_title": {
        "es": "Rutinas de entrenamiento",
        "pt": "Rotinas de treino",
        "en": "Training routines",
    },
    "notes_title": {"es": "Notas del Coach", "pt": "Notas do Coach", "en": "The Coach's notes"},
    "goals_title": {"es": "Tus objetivos", "pt": "Suas metas", "en": "Your goals"},
    "no_meals": {
        "es": "Aún no hay comidas anotadas. Pídele al coach que anote una en el chat.",
        "pt": "Ainda não há refeições registradas. Peça ao coach que registre uma no chat.",
        "en": "No meals logged yet. Ask the coach to log one in the chat.",
    },
    "no_routines": {
        "es": "Aún no hay rutinas guardadas. Pídele al coach que cree una en el chat.",
        "pt": "Ainda não há rotinas salvas. Peça ao coach que crie uma no chat.",
        "en": "No routines saved yet. Ask the coach to create one in the chat.",
    },
    "no_notes": {
        "es": "Aún no hay notas. Pídele al coach que guarde una en el chat.",
        "pt": "Ainda não há notas. Peça ao coach que salve uma no chat.",
        "en": "No notes yet. Ask the coach to save one in the chat.",
    },
    "no_goals": {
        "es": "Aún no hay objetivos. Dile al coach, por ejemplo, «quiero llegar a 74 kg».",
        "pt": "Ainda não há metas. Diga ao coach, por exemplo, “quero chegar a 74 kg”.",
        "en": 'No goals yet. Tell the coach, for example, "I want to get to 74 kg".',
    },
    "meals_lead": {
        "es": "Lo anotado en los últimos {days} días con comidas, del más reciente al más antiguo.",
        "pt": "O que foi registrado nos últimos {days} dias com refeições, do mais recente ao "
        "mais antigo.",
        "en": "What was logged on the last {days} days with meals, newest first.",
    },
    "meal": {"es": "Comida", "pt": "Refeição", "en": "Meal"},
    "exercises": {"es": "Ejercicios", "pt": "Exercícios", "en": "Exercises"},
    "food": {"es": "Alimento", "pt": "Alimento", "en": "Food"},
    "grams": {"es": "Cantidad (g)", "pt": "Quantidade (g)", "en": "Amount (g)"},
    "kcal": {"es": "Energía (kcal)", "pt": "Energia (kcal)", "en": "Energy (kcal)"},
    "day_total": {"es": "Total del día", "pt": "Total do dia", "en": "Day total"},
    "exercise": {"es": "Ejercicio", "pt": "Exercício", "en": "Exercise"},
    "series": {"es": "Series", "pt": "Séries", "en": "Sets"},
    "series_line": {
        "es": "{reps} \u00d7 {kg} kg, descanso {rest} s",
        "pt": "{reps} \u00d7 {kg} kg, descanso {rest} s",
        "en": "{reps} \u00d7 {kg} kg, rest {rest} s",
    },
    "category_strength": {"es": "fuerza", "pt": "força", "en": "strength"},
    "category_hypertrophy": {"es": "hipertrofia", "pt": "hipertrofia", "en": "hypertrophy"},
    "category_cardio": {"es": "cardio", "pt": "cardio", "en": "cardio"},
    "category_flexibility": {"es": "flexibilidad", "pt": "flexibilidade", "en": "flexibility"},
    "routine_name": {"es": "Nombre", "pt": "Nome", "en": "Name"},
    "note_key": {"es": "Nota", "pt": "Nota", "en": "Note"},
    "note_description": {"es": "Descripción", "pt": "Descrição", "en": "Description"},
    "note_value": {"es": "Contenido", "pt": "Conteúdo", "en": "Content"},
    "goal_measure": {"es": "Medida", "pt": "Medida", "en": "Measure"},
    "goal_target": {"es": "Meta", "pt": "Meta", "en": "Target"},
    "goal_by": {"es": "Para el", "pt": "Até", "en": "By"},
    "goal_latest": {"es": "Último valor", "pt": "Último valor", "en": "Latest value"},
    "goal_no_date": {"es": "sin fecha", "pt": "sem data", "en": "no date"},
    "edit_meal_title": {
        "es": "Editar {food} ({meal}, {date})",
        "pt": "Editar {food} ({meal}, {date})",
        "en": "Edit {food} ({meal}, {date})",
    },
    "delete_meal_body": {
        "es": "Se quitará este alimento de la comida. No se puede deshacer.",
        "pt": "Este alimento será removido da refeição. Não é possível desfazer.",
        "en": "This food will be removed from the meal. This cannot be undone.",
    },
    "edit_routine_title": {
        "es": "Renombrar la rutina «{name}»",
        "pt": "Renomear a rotina “{name}”",
        "en": "Rename the routine '{name}'",
    },
    "delete_routine_body": {
        "es": "Se borrará la rutina con todos sus ejercicios y series. No se puede deshacer.",
        "pt": "A rotina será excluída com todos os exercícios e séries. Não é possível desfazer.",
        "en": "The routine is deleted with all its exercises and sets. This cannot be undone.",
    },
    "edit_note_title": {
        "es": "Editar la nota «{key}»",
        "pt": "Editar a nota “{key}”",
        "en": "Edit the note '{key}'",
    },
    "delete_note_title": {
        "es": "¿Borrar la nota «{key}»?",
        "pt": "Excluir a nota “{key}”?",
        "en": "Delete the note '{key}'?",
    },
    "delete_note_body": {
        "es": "El Coach dejará de recordarla. No se puede deshacer.",
        "pt": "O Coach deixará de se lembrar dela. Não é possível desfazer.",
        "en": "The Coach will no longer remember it. This cannot be undone.",
    },
    "edit_goal_title": {
        "es": "Editar el objetivo de {field}",
        "pt": "Editar a meta de {field}",
        "en": "Edit the {field} goal",
    },
    "delete_goal_title": {
        "es": "¿Borrar el objetivo de {field}?",
        "pt": "Excluir a meta de {field}?",
        "en": "Delete the {field} goal?",
    },
    "delete_goal_body": {
        "es": "Tus medidas no cambian; solo se quita la meta.",
        "pt": "Suas medidas não mudam; só a meta é removida.",
        "en": "Your measurements do not change; only the target is removed.",
    },
    "goal_date_hint": {
        "es": "Deja la fecha vacía para un objetivo sin fecha.",
        "pt": "Deixe a data vazia para uma meta sem data.",
        "en": "Leave the date empty for a goal without a date.",
    },
    "item_gone": {
        "es": "Ese alimento ya no está en el diario (quizá se borró en otra pestaña). Recarga la "
        "página.",
        "pt": "Esse alimento não está mais no diário (talvez tenha sido excluído em outra aba). "
        "Recarregue a página.",
        "en": "That food is no longer in the diary (perhaps it was deleted in another tab). "
        "Reload the page.",
    },
    "routine_gone": {
        "es": "Esa rutina ya no existe. Recarga la página.",
        "pt": "Essa rotina não existe mais. Recarregue a página.",
        "en": "That routine no longer exists. Reload the page.",
    },
    "routine_taken": {
        "es": "Ya tienes otra rutina llamada «{name}»; no se ha cambiado nada.",
        "pt": "Você já tem outra rotina chamada “{name}”; nada foi alterado.",
        "en": "You already have another routine called '{name}'; nothing was changed.",
    },
    "note_gone": {
        "es": "Esa nota ya no existe. Recarga la página.",
        "pt": "Essa nota não existe mais. Recarregue a página.",
        "en": "That note no longer exists. Reload the page.",
    },
    "goal_gone": {
        "es": "Ese objetivo ya no existe. Recarga la página.",
        "pt": "Essa meta não existe mais. Recarregue a página.",
        "en": "That goal no longer exists. Reload the page.",
    },
    "record_request_invalid": {
        "es": "No se ha cambiado nada: esta página está desactualizada. Recárgala.",
        "pt": "Nada foi alterado: esta página está desatualizada. Recarregue-a.",
        "en": "Nothing was changed: this page is out of date. Reload it.",
    },
    "text_invalid": {
        "es": "{field}: escribe entre {low} y {high} caracteres.",
        "pt": "{field}: escreva entre {low} e {high} caracteres.",
        "en": "{field}: write from {low} to {high} characters.",
    },
    "nothing_changed": {
        "es": "No has cambiado nada.",
        "pt": "Você não alterou nada.",
        "en": "You did not change anything.",
    },
    # -- the 404 page ------------------------------------------------------------------------
    "not_found_title": {
        "es": "Página no encontrada",
        "pt": "Página não encontrada",
        "en": "Page not found",
    },
    "not_found_body": {
        "es": "No hay nada en esta dirección. Vuelve al chat o elige una página del menú.",
        "pt": "Não há nada neste endereço. Volte ao chat ou escolha uma página do menu.",
        "en": "There is nothing at this address. Go back to the chat or pick a page from the menu.",
    },
    "not_found_back": {"es": "Ir al chat", "pt": "Ir para o chat", "en": "Go to the chat"},
    "not_found_api": {
        "es": "No existe esa dirección de la API.",
        "pt": "Esse endereço da API não existe.",
        "en": "There is no such API address.",
    },
    "method_not_allowed": {
        "es": "Esa dirección no acepta este tipo de petición; no se ha hecho nada.",
        "pt": "Esse endereço não aceita este tipo de pedido; nada foi feito.",
        "en": "That address does not take this kind of request; nothing was done.",
    },
    "no_such_confirmation": {
        "es": "Esa confirmación no existe en esta conversación; no se ha hecho nada.",
        "pt": "Essa confirmação não existe nesta conversa; nada foi feito.",
        "en": "There is no such confirmation in this conversation; nothing was done.",
    },
    "conversation_gone": {
        "es": "Esa conversación no existe.",
        "pt": "Essa conversa não existe.",
        "en": "There is no such conversation.",
    },
    # -- writes and approvals in words -------------------------------------------------------
    "write_what": {"es": "Qué", "pt": "O quê", "en": "What"},
    "pending_question": {
        "es": "¿Lo hago?",
        "pt": "Posso fazer?",
        "en": "Shall I do it?",
    },
    "trace_toggle": {"es": "Traza", "pt": "Rastreamento", "en": "Trace"},
}
_UI.update(_MORE)
register("web", _UI)

EXAMPLES: Final[dict[Lang, tuple[str, ...]]] = {
    "es": (
        "Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01.",
        "Guarda mi peso: 77,4 kg el 2020-01-04.",
        "Lista mis medidas del 2020-01-01 al 2020-01-31.",
        "Guarda la nota objetivo: correr 10 km.",
        "Borra la nota objetivo.",
    ),
    "pt": (
        "Consulte meu peso de 2020-01-02. Se não existir, consulte 2020-01-01.",
        "Salve meu peso: 77,4 kg em 2020-01-04.",
        "Liste minhas medidas de 2020-01-01 a 2020-01-31.",
        "Salve a nota objetivo: correr 10 km.",
        "Exclua a nota objetivo.",
    ),
    "en": (
        "Look up my weight for 2020-01-02. If there is none, look up 2020-01-01.",
        "Save my weight: 77.4 kg on 2020-01-04.",
        "List my measurements from 2020-01-01 to 2020-01-31.",
        "Save the note goal: run 10 km.",
        "Delete the note goal.",
    ),
}

CLIENT_KEYS: Final = (
    "you",
    "coach",
    "harness",
    "thinking",
    "turn",
    "arguments",
    "raw_arguments",
    "outcome",
    "recovery",
    "not_executed",
    "requests_one",
    "requests_many",
    "stopped_title",
    "confirm_title",
    "confirm_body",
    "approve",
    "deny",
    "approved",
    "denied",
    "already_decided",
    "pending_blocks",
    "server_error",
    "busy",
    "network_error",
    "trace_empty",
    "welcome",
    "messages_one",
    "messages_many",
    "no_conversations",
    "field_invalid_any",
    "bad_date",
    "nothing_changed",
    *MEASUREMENT_FIELDS,
)
"""The texts app.js needs, sent with each page."""


def ui(lang: Lang, key: str) -> str:
    """Web text ``key`` in ``lang`` (the catalogue's ``web`` section)."""
    return entry("web", key, lang)


def client_texts(lang: Lang) -> dict[str, str]:
    """The texts app.js needs, in ``lang``."""
    return {key: ui(lang, key) for key in CLIENT_KEYS}


def pick_lang(value: str | None, default: Lang) -> Lang:
    """``value`` when it names a supported language, else ``default``."""
    for lang in LANGS:
        if value == lang:
            return lang
    return default
